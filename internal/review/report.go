package review

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// Report is one turn's changed files.
type Report struct {
	Turn    int          `json:"turn"`
	Running bool         `json:"running"` // the turn has not ended: files show their text now
	Start   time.Time    `json:"start"`
	End     *time.Time   `json:"end,omitempty"`
	Files   []FileReport `json:"files"`
	// Dropped counts files over the per-turn limit, not recorded.
	Dropped int     `json:"dropped,omitempty"`
	Summary Summary `json:"summary"`
}

// FileReport is one changed file of a turn.
type FileReport struct {
	Path string `json:"path"`
	// Status: "modified", "created", "deleted", or "changed" (its earlier text is not known).
	Status string `json:"status"`
	// By: "Edit/Write" (recorded right before the CLI wrote it) or "other" (seen by the watch).
	By string `json:"by"`
	// From says where the earlier text comes from (Source).
	From    Source `json:"from"`
	Binary  bool   `json:"binary,omitempty"`
	TooBig  bool   `json:"tooBig,omitempty"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	// Diff is a unified diff (earlier -> now), empty for binary or unknown text.
	Diff string `json:"diff,omitempty"`
	// Before and After are the texts (Report with texts); absent files have none.
	Before *string `json:"before,omitempty"`
	After  *string `json:"after,omitempty"`
}

// Summary is a turn in one line.
type Summary struct {
	Turn    int  `json:"turn"`
	Running bool `json:"running"`
	Files   int  `json:"files"`
	Added   int  `json:"added"`
	Deleted int  `json:"deleted"`
}

// String is serve's line at the end of a turn.
func (s Summary) String() string {
	return fmt.Sprintf("Claude changed %s: +%d -%d", Files(s.Files), s.Added, s.Deleted)
}

// Files is "1 file" or "N files".
func Files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// Labels are a unified diff's header names for path, as git writes them: a/<path> and b/<path>
// relative to the workspace folder holding it (the first that does), else the absolute path; a
// side that does not exist (created, deleted) is /dev/null. serve's diffs and review's use them.
func Labels(path string, folders []string, before, after bool) (from, to string) {
	from, to = path, path
	for _, f := range folders {
		if rel, err := filepath.Rel(f, path); err == nil && filepath.IsLocal(rel) {
			from, to = "a/"+filepath.ToSlash(rel), "b/"+filepath.ToSlash(rel)
			break
		}
	}
	if !before {
		from = "/dev/null"
	}
	if !after {
		to = "/dev/null"
	}
	return from, to
}

// Counts are the lines a unified diff's hunks add and delete: serve's summaries and review's.
func Counts(hunks []*udiff.Hunk) (added, deleted int) {
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				deleted++
			}
		}
	}
	return added, deleted
}

func summarize(r Report) Summary {
	s := Summary{Turn: r.Turn, Running: r.Running, Files: len(r.Files)}
	for _, f := range r.Files {
		s.Added += f.Added
		s.Deleted += f.Deleted
	}
	return s
}

// reportLocked builds the report of tu; files whose text did not change are left out.
func (t *Tracker) reportLocked(tu *turn, texts bool) Report {
	r := Report{Turn: tu.n, Running: tu.running, Start: tu.start, Dropped: tu.dropped, Files: []FileReport{}}
	if !tu.running {
		end := tu.end
		r.End = &end
	}
	folders := t.cfg.Folders()
	for _, f := range tu.files {
		after := f.after
		if !f.ended {
			after = t.peek(f.path)
		}
		fr, changed := fileReport(f, after, texts, folders)
		if changed {
			r.Files = append(r.Files, fr)
		}
	}
	r.Summary = summarize(r)
	return r
}

// peek reads path's current text for a running turn's report (not kept, not budgeted).
func (t *Tracker) peek(path string) text {
	fi, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return text{absent: true}
		}
		return text{unknown: true}
	}
	if fi.Size() > t.cfg.MaxFile {
		return text{unknown: true, tooBig: true}
	}
	data, err := userfile.Read(path, t.cfg.MaxFile)
	if err != nil {
		return text{unknown: true, tooBig: errors.Is(err, userfile.ErrTooLarge)}
	}
	return text{data: data}
}

func fileReport(f *file, after text, texts bool, folders []string) (FileReport, bool) {
	b := f.before
	fr := FileReport{Path: f.path, By: f.by, From: f.from, TooBig: b.tooBig || after.tooBig}
	switch {
	case b.absent && after.absent:
		return fr, false
	case !b.unknown && !after.unknown && !b.absent && !after.absent && bytes.Equal(b.data, after.data):
		return fr, false
	case after.absent:
		fr.Status = "deleted"
	case b.unknown && !b.tooBig:
		fr.Status = "changed"
	case b.absent:
		fr.Status = "created"
	default:
		fr.Status = "modified"
	}
	if fr.TooBig {
		fr.Status = "modified"
		if b.absent {
			fr.Status = "created"
		}
		return fr, true
	}
	if b.unknown || after.unknown {
		return fr, true
	}
	if binary(b.data) || binary(after.data) {
		fr.Binary = true
		return fr, true
	}
	old, new := string(b.data), string(after.data)
	if texts {
		if !b.absent {
			fr.Before = &old
		}
		if !after.absent {
			fr.After = &new
		}
	}
	from, to := Labels(f.path, folders, !b.absent, !after.absent)
	u, err := udiff.ToUnifiedDiff(from, to, old, udiff.Lines(old, new), 3)
	if err != nil {
		return fr, true
	}
	fr.Added, fr.Deleted = Counts(u.Hunks)
	fr.Diff = u.String()
	return fr, true
}
