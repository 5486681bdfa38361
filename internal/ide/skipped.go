package ide

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// A Claude started without the bridge's command line (a plain `claude` and /ide, or
// `eval "$(claude-ide-bridge env)"; claude`) may run in a mode that writes Edit/Write without
// openDiff (auto, acceptEdits), and nothing told the user. The CLI calls getDiagnostics {uri}
// right before it writes an Edit/Write, and openDiff in between in the modes that show diffs
// (../shared/claude-cli-facts.md). So: a file named by a getDiagnostics {uri} that holds other
// bytes soon after (looked at every pollEvery, and at the client's next getDiagnostics), with no
// openDiff between, was written without a diff. The CLI's getDiagnostics {} after the write
// cannot be waited for: it skips it when the editor has no diagnostics. Events.DiffsSkipped is
// told once per client, and never for a client that has sent an openDiff: it runs in a mode that
// shows diffs, and in that mode the CLI may ask getDiagnostics {uri} after the accept and before
// it writes the accepted text (seen with 2.1.328 under load: a false note). A user who switches
// such a session to acceptEdits later is not told.

// SkippedNotice is the sentence for the user about a Claude seen writing file without a diff
// (Events.DiffsSkipped), for serve's note and the editors' diffsSkipped. file is a name to show
// (a base name: the sentence is not path-translated).
func SkippedNotice(file string) string {
	return fmt.Sprintf("Claude wrote %s without showing a diff: its permission mode (auto or acceptEdits) skips diffs. "+
		"To review each edit, start claude with the command line the bridge prints (claude-ide-bridge env, serve) "+
		"or with --permission-mode default", file)
}

// writeWindow bounds how long after a getDiagnostics {uri} a change counts: the CLI writes
// milliseconds after its answer; the model's own getDiagnostics calls around a Bash edit are a
// model round trip or more apart, and that write is not the mode's doing.
const (
	writeWindow = 3 * time.Second
	pollEvery   = 50 * time.Millisecond
)

// maxStampRead: larger files are compared by size, modification time and inode only (the poll
// reads a summed file up to 60 times).
const maxStampRead = 256 << 10

// writeWatch is one client's getDiagnostics {uri} being watched.
type writeWatch struct {
	gen      uint64 // which watch of the client: a poll of an older one stops
	path     string
	at       time.Time
	stamp    fileStamp
	openDiff bool // an openDiff came since
	shows    bool // the client has sent an openDiff: its mode shows diffs
	told     bool // DiffsSkipped was told for this client
}

// fileStamp is what a file was: its sum when small, else its size, mtime and inode.
type fileStamp struct {
	exists bool
	fi     os.FileInfo
	sum    [32]byte
	summed bool
}

func stampFile(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}
	}
	s := fileStamp{exists: true, fi: fi}
	if fi.Size() <= maxStampRead {
		if data, err := os.ReadFile(path); err == nil && len(data) <= maxStampRead {
			s.sum, s.summed = sha256.Sum256(data), true
		}
	}
	return s
}

func (s fileStamp) differs(t fileStamp) bool {
	switch {
	case s.exists != t.exists:
		return true
	case !s.exists:
		return false
	case s.summed && t.summed:
		return !bytes.Equal(s.sum[:], t.sum[:])
	}
	return s.fi.Size() != t.fi.Size() || !s.fi.ModTime().Equal(t.fi.ModTime()) || !os.SameFile(s.fi, t.fi)
}

// watchWrites applies the rule to one tool call of client id (CallTool, before the tool runs).
func (m *Model) watchWrites(id ClientID, name string, args json.RawMessage) {
	if name != "getDiagnostics" && name != "openDiff" {
		return
	}
	var a struct {
		URI string `json:"uri"`
	}
	if name == "getDiagnostics" && jsonrpc.UnmarshalParams(args, &a) != nil {
		return
	}
	m.mu.Lock()
	c := m.clients[id]
	if c == nil || c.writes.told || c.writes.shows {
		m.mu.Unlock()
		return
	}
	if name == "openDiff" {
		c.writes.openDiff, c.writes.shows = true, true
		m.mu.Unlock()
		return
	}
	prev := c.writes
	m.mu.Unlock()
	// The files are read without the lock: the call waits for it, not the other clients.
	if m.checkWrite(id, prev) {
		return
	}
	p := strings.TrimPrefix(a.URI, "file://")
	if p == "" || !filepath.IsAbs(p) {
		return
	}
	next := writeWatch{path: filepath.Clean(p), at: time.Now(), stamp: stampFile(p)}
	m.mu.Lock()
	c = m.clients[id]
	if c == nil || c.writes.told || c.writes.shows || m.closed {
		m.mu.Unlock()
		return
	}
	next.gen = c.writes.gen + 1
	c.writes = next
	m.mu.Unlock()
	time.AfterFunc(pollEvery, func() { m.pollWrite(id, next.gen) })
}

// pollWrite looks at the file of client id's watch gen until it changes or the window ends.
func (m *Model) pollWrite(id ClientID, gen uint64) {
	m.mu.Lock()
	c := m.clients[id]
	if c == nil || m.closed || c.writes.gen != gen {
		m.mu.Unlock()
		return
	}
	w := c.writes
	m.mu.Unlock()
	if !m.checkWrite(id, w) && w.path != "" && !w.openDiff && !w.told && time.Since(w.at) < writeWindow {
		time.AfterFunc(pollEvery, func() { m.pollWrite(id, gen) })
	}
}

// checkWrite tells DiffsSkipped if w's file changed with no openDiff, within the window, and
// reports whether it did.
func (m *Model) checkWrite(id ClientID, w writeWatch) bool {
	if w.path == "" || w.openDiff || w.told || time.Since(w.at) >= writeWindow || !stampFile(w.path).differs(w.stamp) {
		return false
	}
	m.mu.Lock()
	c := m.clients[id]
	ok := c != nil && c.writes.gen == w.gen && !c.writes.openDiff && !c.writes.shows && !c.writes.told
	if ok {
		c.writes = writeWatch{gen: w.gen + 1, told: true}
	}
	m.mu.Unlock()
	if ok {
		m.log.Info("a Claude client writes edits without diffs", "client", id, "file", w.path)
		if f := m.events.DiffsSkipped; f != nil {
			f(id, w.path)
		}
	}
	return ok
}
