package terminal

import "fmt"

// Notice prints one line of news between prompts: a turn's summary, a session's new state.
// line must be safe for a terminal already (termtext).
func (e *Editor) Notice(line string) {
	fmt.Fprintf(e.out, "\n%s\n", line)
}
