package terminal

import "fmt"

// Notice prints one line of news: a turn's summary, a session's new state. line must be safe for
// a terminal already (termtext). It is queued for Run, so it never lands inside a diff being
// printed, after a question (a question waiting for a key prints it above itself and is asked
// again: the question stays the last line), or before the diff --auto answered that caused it.
func (e *Editor) Notice(line string) { e.enqueue(autoShown{note: line}) }

// printNote prints a notice between questions.
func (e *Editor) printNote(line string) { fmt.Fprintf(e.out, "\n%s\n", line) }

// notesAbove prints the queued notices while question waits for a key: on a terminal the
// question's line is cleared and the terminal cooked while printing (each line starts at column
// 0), then the question is printed again.
func (e *Editor) notesAbove(question string) {
	var notes []string
	for {
		a, ok := e.nextAuto()
		if !ok {
			break
		}
		notes = append(notes, a.note) // a question is asked only without --auto: notices only
	}
	if len(notes) == 0 {
		return
	}
	if e.keys != nil {
		e.keys.cooked()
		defer e.keys.raw()
		fmt.Fprint(e.out, "\r\x1b[K")
	} else {
		fmt.Fprintln(e.out)
	}
	for _, n := range notes {
		fmt.Fprintln(e.out, n)
	}
	fmt.Fprint(e.out, question)
}
