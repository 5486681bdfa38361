package terminal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// maxOldFile bounds how much of the file on disk is read to diff a proposal against; the
// bridge's own proposals are at most ide.MaxDiffText.
const maxOldFile = 64 << 20

// readOld returns the file's current text (empty when it does not exist yet), at most maxOldFile.
// A file under /proc, /sys or /dev, or bigger than maxOldFile, reads as "" (userfile: the read
// is bounded while reading, /proc/self/pagemap is "regular" and reads ~256 GiB).
func readOld(path string) []byte {
	b, _ := userfile.Read(path, maxOldFile)
	return b
}

// diffProposal is diffProposal with git's header names (review.Labels): a/ and b/ paths
// relative to the workspace, /dev/null for a file that did not exist (existed: looked at before
// the answer, after which Claude may create it).
func (e *Editor) diffProposal(path, old, new string, existed bool) proposal {
	p := diffProposal(path, old, new)
	e.mu.Lock()
	d := e.d
	e.mu.Unlock()
	var folders []string
	if d != nil {
		folders = d.Folders()
	}
	p.from, p.to = review.Labels(path, folders, existed, true)
	return p
}

// exists tells whether path names a file now (anything but "does not exist" counts).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// autoDecide answers a diff for --auto at once, from ShowDiff, before anything is printed: the
// answer never waits for the diff to be computed or for the terminal. The file is read first,
// because once accepted Claude writes it; the summary is printed later by Run (printAuto), which
// also makes it a string (10 MiB copied: ~5 ms the answer need not wait for).
func (e *Editor) autoDecide(p ide.ShowDiffParams) (old []byte, existed bool) {
	old, existed = readOld(p.FilePath), exists(p.FilePath)
	e.mu.Lock()
	d := e.d
	e.mu.Unlock()
	if d == nil {
		return old, existed
	}
	d.Decide(p.Seq, ide.Decision{Accept: e.auto == Accept})
	return old, existed
}

// printAuto prints what --auto decided: the summary and at most a screenful of the diff.
func (e *Editor) printAuto(p ide.ShowDiffParams, old []byte, existed bool) {
	pr := e.diffProposal(p.FilePath, string(old), p.NewContents.String(), existed)
	_, rows := screen(e.out)
	fmt.Fprintf(e.out, "\n%s\n", e.paint("1", "Claude proposes a change to "+termtext.Line(p.FilePath)+": "+pr.Summary()))
	if left := pr.render(e.out, max(rows-4, 5), e.paint); left > 0 {
		fmt.Fprintf(e.out, "... %d more %s not shown\n", left, plural(left, "line", "lines"))
	}
	if e.auto == Accept {
		fmt.Fprintln(e.out, "auto: accepted")
	} else {
		fmt.Fprintln(e.out, "auto: rejected")
	}
}

// autoShown is a diff --auto has answered, or a notice (Notice), waiting for Run to print it.
// One queue keeps what is printed in the order it happened: a diff --auto answered is printed
// before the state lines and the turn summary that its answer caused (issue 39 item 6).
type autoShown struct {
	p       ide.ShowDiffParams
	old     []byte
	existed bool   // the file existed before the answer
	note    string // a notice: printed as it is
}

// maxAutoQueue bounds the answered diffs waiting to be printed (each holds its texts); past it
// the oldest is dropped and counted. maxNotes bounds the notices likewise (the oldest dropped).
const (
	maxAutoQueue = 4
	maxNotes     = 64
)

// queueAuto hands an answered diff to Run for printing.
func (e *Editor) queueAuto(p ide.ShowDiffParams, old []byte, existed bool) {
	e.enqueue(autoShown{p: p, old: old, existed: existed})
}

// enqueue queues a diff or a notice for Run and wakes it.
func (e *Editor) enqueue(a autoShown) {
	note := a.note != ""
	e.mu.Lock()
	n, first := e.countQueued(note)
	if !note && n >= maxAutoQueue || note && n >= maxNotes {
		e.autoQ = append(e.autoQ[:first], e.autoQ[first+1:]...)
		if !note {
			e.autoDropped++
		}
	}
	e.autoQ = append(e.autoQ, a)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// countQueued counts the queued notices (notes) or diffs, and gives the index of the first.
func (e *Editor) countQueued(notes bool) (n, first int) {
	first = -1
	for i, a := range e.autoQ {
		if (a.note != "") == notes {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	return n, first
}

// nextAuto takes the next answered diff or notice to print.
func (e *Editor) nextAuto() (autoShown, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.autoDropped > 0 {
		fmt.Fprintf(e.out, "\n(%d more %s answered by --auto while the terminal was busy; not shown)\n", e.autoDropped, plural(e.autoDropped, "diff", "diffs"))
		e.autoDropped = 0
	}
	if len(e.autoQ) == 0 {
		return autoShown{}, false
	}
	a := e.autoQ[0]
	e.autoQ[0] = autoShown{}
	e.autoQ = e.autoQ[1:]
	return a, true
}
