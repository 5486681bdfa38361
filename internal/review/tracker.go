package review

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// Defaults of Config.
const (
	DefaultMaxTurns = 20
	DefaultMaxFile  = 15 << 20  // as openDiff's proposals
	DefaultMaxTotal = 256 << 20 // every text of every turn kept
	// maxFilesPerTurn bounds the files one turn records (a generator writing thousands).
	maxFilesPerTurn = 2000
	mtimeSlack      = 20 * time.Millisecond
)

// Config configures a Tracker.
type Config struct {
	// Folders are the workspace folders (watched, and the only places Revert writes).
	Folders func() []string
	// Watch: watch the folders with fsnotify for changes made by other means than Edit/Write.
	Watch    bool
	MaxTurns int
	MaxFile  int64
	MaxTotal int64
	// TurnEnded is called (on its own goroutine, in order) with the summary of each turn that
	// ends with at least one change.
	TurnEnded func(Summary)
	Log       *slog.Logger
}

// Source says where a file's earlier text came from.
type Source string

const (
	FromSnapshot Source = "snapshot"      // read right before Claude's Edit/Write
	FromTurn     Source = "previous turn" // the text a previous turn left
	FromGit      Source = "git index"     // the index's blob of a tracked file
	FromCreate   Source = "created"       // the watch saw the file created: there was none
	FromNone     Source = "unknown"       // an untracked file that existed: not known
)

// text is one side of a file: its bytes, or that it did not exist, or that it was not kept.
type text struct {
	data    []byte
	absent  bool        // the file did not exist
	unknown bool        // not known / not kept
	tooBig  bool        // over MaxFile or the total budget
	mode    os.FileMode // its permissions when read (Revert restores them); with hasMode
	hasMode bool
}

func (t text) size() int64 { return int64(len(t.data)) }

// file is one file a turn changed (or may have: unchanged ones are left out of reports).
type file struct {
	path   string
	by     string // "Edit/Write" or "other"
	from   Source
	before text
	after  text // set when the turn ends (or on Revert)
	ended  bool // after is set
	seen   time.Time
}

type turn struct {
	n          int
	start, end time.Time
	running    bool
	files      []*file
	byPath     map[string]*file
	dropped    int // files over maxFilesPerTurn
}

// Tracker is the record of turns. It is safe for concurrent use; its state lives in this struct
// under mu.
type Tracker struct {
	cfg Config
	log *slog.Logger
	git *gitReader
	w   *watcher // nil without Watch

	mu     sync.Mutex
	turns  []*turn // oldest first
	next   int     // number of the next turn
	total  int64   // bytes of every kept text
	user   map[string]userWrite
	closed bool

	ended chan announcement // ended turns, to the TurnEnded goroutine
	done  chan struct{}
}

// New returns a Tracker; with cfg.Watch it starts watching the folders.
func New(cfg Config) (*Tracker, error) {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.MaxFile <= 0 {
		cfg.MaxFile = DefaultMaxFile
	}
	if cfg.MaxTotal <= 0 {
		cfg.MaxTotal = DefaultMaxTotal
	}
	if cfg.Folders == nil {
		cfg.Folders = func() []string { return nil }
	}
	log := cmp.Or(cfg.Log, slog.New(slog.DiscardHandler))
	t := &Tracker{cfg: cfg, log: log, git: newGitReader(cfg.Folders), next: 1, user: map[string]userWrite{},
		ended: make(chan announcement, 16), done: make(chan struct{})}
	go t.announce()
	if cfg.Watch {
		w, err := newWatcher(t, cfg.Folders(), log)
		if err != nil {
			log.Warn("review: no watch of the workspace; only Edit/Write are recorded", "err", err)
		} else {
			t.w = w
		}
	}
	return t, nil
}

// Close stops the watch. The record stays readable.
func (t *Tracker) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	if t.w != nil {
		t.w.close()
	}
	t.git.close()
	close(t.ended)
	<-t.done
	return nil
}

func (t *Tracker) announce() {
	defer close(t.done)
	for a := range t.ended {
		// The diffs are computed here, off the tool call that ended the turn.
		if r, err := t.Report(a.n, false); err == nil && len(r.Files) > 0 && t.cfg.TurnEnded != nil {
			t.cfg.TurnEnded(r.Summary)
		}
		close(a.done)
	}
}

// ToolCall is the ide.Observer: closeAllDiffTabs starts a turn, getDiagnostics {uri} and
// openDiff record the file before Claude writes it.
func (t *Tracker) ToolCall(id ide.ClientID, name string, args json.RawMessage) {
	switch name {
	case "closeAllDiffTabs":
		t.Prompt()
	case "getDiagnostics", "openDiff":
		var a struct {
			URI  string `json:"uri"`
			Path string `json:"old_file_path"`
			// Unused, and a Text so that it is not read: skipping it would read it in full.
			Proposal jsonrpc.Text `json:"new_file_contents"`
		}
		// The bridge's reader, not encoding/json: openDiff's args carry the whole proposal
		// (10 MiB and more), which encoding/json checked and unquoted again on every call,
		// ~50 ms of CPU per 10 MiB openDiff before the diff was shown (issue 27, perf of
		// `serve --stdio`); jsonrpc leaves the text undecoded and knows it already checked.
		if jsonrpc.UnmarshalParams(args, &a) != nil {
			return
		}
		p := a.Path
		if name == "getDiagnostics" {
			p = a.URI
		}
		if p = strings.TrimPrefix(p, "file://"); p != "" && filepath.IsAbs(p) {
			t.Touch(filepath.Clean(p))
		}
	}
}

// Prompt starts a new turn (ending the running one).
func (t *Tracker) Prompt() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if cur := t.currentLocked(); cur != nil && cur.running {
		if len(cur.files) == 0 && time.Since(cur.start) < time.Second {
			return // one prompt seen twice (closeAllDiffTabs and the hook)
		}
		t.endLocked(cur)
	}
	t.startLocked()
}

// EndTurn ends the running turn (the CLI's Stop hook).
// Its summary is announced before it returns (bounded), so that serve prints it before the
// session's next state.
func (t *Tracker) EndTurn() {
	t.mu.Lock()
	var done chan struct{}
	if cur := t.currentLocked(); cur != nil && cur.running {
		done = t.endLocked(cur)
	}
	t.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}
}

func (t *Tracker) currentLocked() *turn {
	if len(t.turns) == 0 {
		return nil
	}
	return t.turns[len(t.turns)-1]
}

func (t *Tracker) startLocked() *turn {
	tu := &turn{n: t.next, start: time.Now(), running: true, byPath: map[string]*file{}}
	t.next++
	t.turns = append(t.turns, tu)
	for len(t.turns) > t.cfg.MaxTurns {
		t.dropLocked(0)
	}
	return tu
}

func (t *Tracker) dropLocked(i int) {
	for _, f := range t.turns[i].files {
		t.total -= f.before.size() + f.after.size()
	}
	t.turns = slices.Delete(t.turns, i, i+1)
}

// endLocked reads what each file of tu is now and announces the summary.
// The returned channel is closed once TurnEnded has been told (nil: nothing to tell).
func (t *Tracker) endLocked(tu *turn) chan struct{} {
	tu.running, tu.end = false, time.Now()
	for _, f := range tu.files {
		if !f.ended {
			f.after = t.readLocked(f.path, tu)
			f.ended = true
		}
	}
	if len(tu.files) > 0 && !t.closed {
		done := make(chan struct{})
		select {
		case t.ended <- announcement{tu.n, done}:
			return done
		default: // a reader that does not keep up loses summaries, never blocks a turn
		}
	}
	return nil
}

// announcement is an ended turn for the TurnEnded goroutine; done is closed after it told.
type announcement struct {
	n    int
	done chan struct{}
}

// runningLocked is the running turn, started if there is none (a CLI that connected in the
// middle of a prompt).
func (t *Tracker) runningLocked() *turn {
	if cur := t.currentLocked(); cur != nil && cur.running {
		return cur
	}
	return t.startLocked()
}

// Touch records path's text before Claude writes it, unless the running turn has it already
// or it is outside the workspace folders.
func (t *Tracker) Touch(path string) {
	if !t.inWorkspace(path) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	tu := t.runningLocked()
	if tu.byPath[path] != nil {
		return
	}
	t.addLocked(tu, &file{path: path, by: "Edit/Write", from: FromSnapshot, before: t.readLocked(path, tu)})
}

// inWorkspace: only files inside the workspace folders (their symlinks resolved) are recorded;
// the model names any absolute path it likes.
func (t *Tracker) inWorkspace(path string) bool {
	_, ok := userfile.Inside(path, userfile.Roots(t.cfg.Folders()))
	return ok
}

func (t *Tracker) addLocked(tu *turn, f *file) {
	if len(tu.files) >= maxFilesPerTurn {
		tu.dropped++
		return
	}
	tu.files = append(tu.files, f)
	tu.byPath[f.path] = f
}

// readLocked reads path within the per-file and total budgets; older turns are dropped to make
// room, never tu.
func (t *Tracker) readLocked(path string, tu *turn) text {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return text{absent: true}
	}
	if err != nil || !fi.Mode().IsRegular() {
		return text{unknown: true}
	}
	if fi.Size() > t.cfg.MaxFile {
		return text{unknown: true, tooBig: true}
	}
	if !t.makeRoomLocked(fi.Size(), tu) {
		return text{unknown: true, tooBig: true}
	}
	// userfile.Read: regular files only, one buffer of the stat's size (io.ReadAll's doubling
	// doubled the p99 of the getDiagnostics call this runs on, BenchmarkDiagnosticsSnapshot),
	// bounded while it reads.
	data, err := userfile.Read(path, t.cfg.MaxFile)
	if errors.Is(err, userfile.ErrTooLarge) {
		return text{unknown: true, tooBig: true} // it grew while read past the limit
	}
	if err != nil {
		return text{unknown: true}
	}
	t.total += int64(len(data))
	return text{data: data, mode: fi.Mode().Perm(), hasMode: true}
}

// keepLocked accounts for data read elsewhere (git), within the budgets.
func (t *Tracker) keepLocked(data []byte, tu *turn) text {
	if int64(len(data)) > t.cfg.MaxFile || !t.makeRoomLocked(int64(len(data)), tu) {
		return text{unknown: true, tooBig: true}
	}
	t.total += int64(len(data))
	return text{data: data}
}

func (t *Tracker) makeRoomLocked(n int64, keep *turn) bool {
	for t.total+n > t.cfg.MaxTotal {
		if len(t.turns) == 0 || t.turns[0] == keep {
			return false
		}
		t.dropLocked(0)
	}
	return true
}

// changed is called by the watch for a file that changed in a folder (created: a Create
// event). git runs without the lock held: a snapshot for an Edit must not wait for it.
func (t *Tracker) changed(path string, created bool) {
	if !t.inWorkspace(path) {
		return
	}
	want := func() (*turn, bool) {
		cur := t.currentLocked()
		if t.closed || cur == nil || !cur.running || cur.byPath[path] != nil {
			return nil, false
		}
		if _, err := os.Lstat(path); err != nil && userfile.IsTemp(filepath.Base(path)) {
			return nil, false // a Revert's temporary file, renamed already (Revert holds mu)
		}
		// Events arrive late: a file last written before the turn began changed between turns.
		// mtimes come from the kernel's coarse clock (a tick, up to 10 ms), hence the slack.
		if fi, err := os.Stat(path); err == nil && fi.ModTime().Before(cur.start.Add(-mtimeSlack)) {
			return nil, false
		}
		if w, ok := t.user[path]; ok {
			data, err := userfile.Read(path, t.cfg.MaxFile)
			if w.absent && os.IsNotExist(err) || !w.absent && err == nil && sha(data) == w.sum {
				return nil, false // the user's own write (Revert, an editor's save)
			}
			delete(t.user, path)
		}
		return cur, true
	}
	t.mu.Lock()
	_, ok := want()
	var prev *text
	if ok {
		prev = t.lastAfterLocked(path)
	}
	t.mu.Unlock()
	if !ok {
		return
	}
	var blob []byte
	inGit := false
	if prev == nil {
		blob, inGit = t.git.indexBlob(path, t.cfg.MaxFile)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	cur, ok := want()
	if !ok {
		return
	}
	f := &file{path: path, by: "other", seen: time.Now()}
	switch {
	case prev != nil:
		f.from, f.before = FromTurn, *prev
		t.total += prev.size()
	case inGit:
		f.from, f.before = FromGit, t.keepLocked(blob, cur)
		if fi, err := os.Stat(path); err == nil {
			f.before.mode, f.before.hasMode = fi.Mode().Perm(), true
		}
	case created:
		f.from, f.before = FromCreate, text{absent: true}
	default:
		f.from, f.before = FromNone, text{unknown: true}
	}
	t.addLocked(cur, f)
}

// lastAfterLocked is the text the last ended turn that recorded path left, if known.
func (t *Tracker) lastAfterLocked(path string) *text {
	for i := len(t.turns) - 2; i >= 0; i-- {
		if f := t.turns[i].byPath[path]; f != nil && f.ended && !f.after.unknown {
			a := f.after
			return &a
		}
	}
	return nil
}

// UserSaved is UserWrote with the file's text as it is now on disk (an editor's userWrote). A
// path that is not absolute, or not a regular file of at most MaxFile bytes, is ignored.
func (t *Tracker) UserSaved(path string) {
	if !filepath.IsAbs(path) {
		return
	}
	if data, err := userfile.Read(path, t.cfg.MaxFile); err == nil {
		t.UserWrote(path, data)
	}
}

// UserWrote tells the Tracker that the user (not Claude) wrote data to path: a watch event that
// finds exactly that content is not counted as Claude's.
func (t *Tracker) UserWrote(path string, data []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.user[path] = userWrite{sum: sha(data)}
	// The editor's word may come after the watch saw the write: a file the watch recorded
	// just now, whose text is what the user wrote, was the user's.
	cur := t.currentLocked()
	if cur == nil || !cur.running {
		return
	}
	if f := cur.byPath[path]; f != nil && f.by == "other" && time.Since(f.seen) < userWriteWindow {
		if now, err := userfile.Read(path, t.cfg.MaxFile); err == nil && bytes.Equal(now, data) {
			t.removeLocked(cur, f)
		}
	}
}

// userWriteWindow: how long after the watch saw a change an editor's "the user wrote it" may
// still take it back from the turn.
const userWriteWindow = 3 * time.Second

func (t *Tracker) removeLocked(tu *turn, f *file) {
	delete(tu.byPath, f.path)
	tu.files = slices.DeleteFunc(tu.files, func(g *file) bool { return g == f })
	t.total -= f.before.size() + f.after.size()
}

// userWrite is what the user last wrote to a file: its hash, or that they removed it.
type userWrite struct {
	sum    [32]byte
	absent bool
}

// ErrNoTurn: no such turn is kept.
var ErrNoTurn = errors.New("no such turn")

// findLocked returns turn n (0: the latest with a change, or the latest).
func (t *Tracker) findLocked(n int) (*turn, error) {
	if n > 0 {
		for _, tu := range t.turns {
			if tu.n == n {
				return tu, nil
			}
		}
		return nil, fmt.Errorf("%w: turn %d (turns kept: %s)", ErrNoTurn, n, t.keptLocked())
	}
	for i := len(t.turns) - 1; i >= 0; i-- {
		if len(t.reportLocked(t.turns[i], false).Files) > 0 {
			return t.turns[i], nil
		}
	}
	if len(t.turns) == 0 {
		return nil, fmt.Errorf("%w: Claude has had no turn yet", ErrNoTurn)
	}
	return t.turns[len(t.turns)-1], nil
}

func (t *Tracker) keptLocked() string {
	if len(t.turns) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d to %d", t.turns[0].n, t.turns[len(t.turns)-1].n)
}

// Report is turn n (0: the last turn that changed something). With texts, each file carries
// its earlier and current text (for an editor's diff view).
func (t *Tracker) Report(n int, texts bool) (Report, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tu, err := t.findLocked(n)
	if err != nil {
		return Report{}, err
	}
	return t.reportLocked(tu, texts), nil
}

// Turns lists the kept turns, newest first, each with its summary.
func (t *Tracker) Turns() []Summary {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Summary
	for i := len(t.turns) - 1; i >= 0; i-- {
		out = append(out, t.reportLocked(t.turns[i], false).Summary)
	}
	return out
}

// Revert writes path back to the text it had at the start of turn n (0: as Report) — a file
// Claude created is removed — and records the write as the user's.
func (t *Tracker) Revert(n int, path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	tu, err := t.findLocked(n)
	if err != nil {
		return err
	}
	path = filepath.Clean(path)
	f := tu.byPath[path]
	if f == nil {
		return fmt.Errorf("turn %d did not change %s", tu.n, path)
	}
	// userfile writes only inside the folders, following no link below them, atomically.
	switch b := f.before; {
	case b.unknown:
		return fmt.Errorf("the text %s had before turn %d is not known (%s): not reverted", path, tu.n, whyUnknown(f))
	case b.absent:
		if err := userfile.RemoveIn(t.cfg.Folders(), path); err != nil {
			return fmt.Errorf("not reverted: %w", err)
		}
		t.user[path] = userWrite{absent: true}
	default:
		// The mode it had when recorded; not recorded (git's text of a file deleted before the
		// watch saw it): as git checks a file out with the usual umask.
		mode := os.FileMode(0o644)
		if b.hasMode {
			mode = b.mode
		}
		t.user[path] = userWrite{sum: sha(b.data)}
		if err := userfile.WriteIn(t.cfg.Folders(), path, b.data, mode); err != nil {
			return fmt.Errorf("not reverted: %w", err)
		}
	}
	t.total -= f.after.size()
	f.after, f.ended = f.before, true
	t.total += f.after.size()
	return nil
}

func whyUnknown(f *file) string {
	if f.before.tooBig {
		return "over the size limit"
	}
	return string(f.from)
}

// binary: a NUL in the first 8 KiB, or not UTF-8.
func binary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8<<10)], 0) >= 0 || !utf8.Valid(b)
}

func sha(b []byte) [32]byte { return sha256.Sum256(b) }
