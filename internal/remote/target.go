package remote

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// Target is what a user names on the command line: a file and, optionally, lines.
type Target struct {
	Path string // as given (made absolute by the caller)
	// Start and End are 1-based and inclusive, as editors show lines; both 0 for a whole file.
	Start, End int
}

var suffixRE = regexp.MustCompile(`^(.+):(\d+)(?:-(\d+))?$`)

// ParseTarget parses PATH[:START[-END]]. A PATH that itself ends in ":digits" and exists is
// taken whole; otherwise the suffix is lines. Lines are 1-based and START <= END.
func ParseTarget(arg string) (Target, error) {
	if arg == "" {
		return Target{}, fmt.Errorf("no file given")
	}
	m := suffixRE.FindStringSubmatch(arg)
	if m == nil {
		return Target{Path: arg}, nil
	}
	if _, err := os.Stat(m[1]); err != nil {
		if _, err2 := os.Stat(arg); err2 == nil {
			return Target{Path: arg}, nil // a file really named "x:12"
		}
	}
	start, err := strconv.Atoi(m[2])
	if err != nil || start < 1 {
		return Target{}, fmt.Errorf("%q: lines start at 1", arg)
	}
	end := start
	if m[3] != "" {
		if end, err = strconv.Atoi(m[3]); err != nil || end < start {
			return Target{}, fmt.Errorf("%q: want START-END with START <= END", arg)
		}
	}
	return Target{Path: m[1], Start: start, End: end}, nil
}

// String is PATH[:START[-END]].
func (t Target) String() string {
	switch {
	case t.Start == 0:
		return t.Path
	case t.Start == t.End:
		return fmt.Sprintf("%s:%d", t.Path, t.Start)
	default:
		return fmt.Sprintf("%s:%d-%d", t.Path, t.Start, t.End)
	}
}
