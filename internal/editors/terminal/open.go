package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Opener turns an openFile into the argv of the user's editor (`serve --open-cmd`). The template
// is the user's, split into words once, like a shell would without expanding anything; the
// untrusted file path from Claude is then substituted inside words, so it is always exactly one
// argument and never reaches a shell.
type Opener struct {
	words []string
}

// Placeholders in an --open-cmd template.
const (
	phFile   = "{file}"   // the absolute path
	phLine   = "{line}"   // 1-based line of the selection's start (1 without one)
	phColumn = "{column}" // 1-based column (bytes) of the selection's start
)

// ParseOpenCmd splits tmpl into words: blanks separate them; single quotes keep everything
// literally; double quotes keep blanks and take \" and \\; a backslash outside quotes escapes the
// next character. Nothing is expanded ($VAR, ~, globs are kept as written). A template without
// {file} gets it as a last word.
func ParseOpenCmd(tmpl string) (*Opener, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune
		esc   bool
	)
	for _, r := range tmpl {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				esc = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, in = true, true
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, fmt.Errorf("--open-cmd %q: unfinished quote or escape", tmpl)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("--open-cmd is empty")
	}
	if strings.Contains(words[0], "{") {
		return nil, fmt.Errorf("--open-cmd %q: the program itself cannot be a placeholder", tmpl)
	}
	hasFile := false
	for _, w := range words[1:] {
		hasFile = hasFile || strings.Contains(w, phFile)
	}
	if !hasFile {
		words = append(words, phFile)
	}
	return &Opener{words: words}, nil
}

// Argv returns the command for a file (absolute) at a 1-based line and column. A path that is
// not absolute is refused: it could start with "-" and be read as an option.
func (o *Opener) Argv(file string, line, column int) ([]string, error) {
	if !filepath.IsAbs(file) {
		return nil, fmt.Errorf("refusing to open %q: not an absolute path", file)
	}
	r := strings.NewReplacer(phFile, file, phLine, strconv.Itoa(line), phColumn, strconv.Itoa(column))
	argv := make([]string, len(o.words))
	argv[0] = o.words[0]
	for i, w := range o.words[1:] {
		// One pass: a path that itself contains "{line}" is not substituted again.
		argv[i+1] = r.Replace(w)
	}
	return argv, nil
}

// VisualOpenCmd is the --open-cmd template used when none is given and $VISUAL is set: $VISUAL's
// words (it is the user's own setting) and the way its editor takes a line, for the editors
// known here; others get the file alone. "" when visual is empty.
func VisualOpenCmd(visual string) string {
	visual = strings.TrimSpace(visual)
	if visual == "" || strings.Contains(visual, phFile) {
		return visual
	}
	o, err := ParseOpenCmd(visual)
	if err != nil {
		return ""
	}
	base := filepath.Base(o.words[0])
	quoted := make([]string, 0, len(o.words)-1)
	for _, w := range o.words[:len(o.words)-1] { // less the {file} ParseOpenCmd appended
		quoted = append(quoted, termtext.ShellQuote(w))
	}
	cmd := strings.Join(quoted, " ")
	switch base {
	case "vi", "vim", "nvim", "gvim", "mvim", "nano", "emacs", "emacsclient", "kak", "micro", "joe", "mg", "ne":
		return cmd + " +{line} {file}"
	case "hx", "helix", "subl", "zed", "zeditor":
		return cmd + " {file}:{line}"
	case "code", "codium", "code-insiders", "cursor", "windsurf":
		return cmd + " --goto {file}:{line}:{column}"
	}
	return cmd + " {file}"
}

// SetOpener makes openFile run the user's editor (nil: only print, as without --open-cmd). When
// term is set the editor gets this terminal (stdin, stdout, stderr) and is waited for, as the
// review's "e" does; otherwise its output goes to the Editor's output. Call before Run.
func (e *Editor) SetOpener(o *Opener, term bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opener, e.openTerm = o, term
	if e.opens == nil {
		e.opens = make(chan []string, 16)
	}
}

// queueOpen hands an openFile to the Run loop, which runs the editor between reviews, so that a
// terminal editor never shares the terminal with a prompt. The tool answers at once; a full
// queue (16 files not yet opened) drops the request with a message.
func (e *Editor) queueOpen(p ide.OpenFileParams) {
	e.mu.Lock()
	o, opens := e.opener, e.opens
	e.mu.Unlock()
	if o == nil {
		return
	}
	line, col := 1, 1
	if p.Selection != nil {
		line, col = p.Selection.Start.Line+1, p.Selection.Start.Character+1
	}
	argv, err := o.Argv(p.FilePath, line, col)
	if err != nil {
		fmt.Fprintf(e.out, "--open-cmd: %v\n", err)
		return
	}
	select {
	case opens <- argv:
	default:
		fmt.Fprintln(e.out, "--open-cmd: too many files waiting to be opened; this one is skipped")
	}
}

// runOpen runs one editor command and waits for it (bounded by ctx). It never goes through a
// shell: argv[0] is looked up on $PATH, outside the workspace (command), and the rest are its
// arguments as they are.
func (e *Editor) runOpen(ctx context.Context, argv []string) {
	cmd, err := e.command(ctx, argv[0], argv[1:]...)
	if err != nil {
		fmt.Fprintf(e.out, "--open-cmd %s: %v\n", termtext.Line(argv[0]), termtext.Line(err.Error()))
		return
	}
	e.mu.Lock()
	term := e.openTerm
	e.mu.Unlock()
	if term {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	} else {
		cmd.Stdout, cmd.Stderr = e.out, e.out
		cmd.Stdin = eofReader{}
	}
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(e.out, "--open-cmd %s: %v\n", argv[0], err)
	}
}

// nextOpen returns a queued editor command, if any, without waiting.
func (e *Editor) nextOpen() []string {
	e.mu.Lock()
	opens := e.opens
	e.mu.Unlock()
	select {
	case argv := <-opens:
		return argv
	default:
		return nil
	}
}

// openReady is the channel Run waits on for editor commands (nil, never ready, without an opener).
func (e *Editor) openReady() <-chan []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opens
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
