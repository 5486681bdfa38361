package ide

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// A Claude started without the bridge's command line (a plain `claude` and /ide, or
// `eval "$(claude-ide-bridge env)"; claude`) may run in a mode that writes Edit/Write without
// openDiff (auto, acceptEdits), and nothing told the user. The CLI calls getDiagnostics {uri}
// right before it writes an Edit/Write, openDiff in between in the modes that show diffs, and
// getDiagnostics {} right after (../shared/claude-cli-facts.md). So: a file named by a
// getDiagnostics {uri} that holds other bytes at the client's next getDiagnostics, with no
// openDiff between, was written without a diff. Events.DiffsSkipped is told once per client.

// writeWindow bounds the time from the call before a write to the one after it: the CLI's pair
// is milliseconds apart; the model's own getDiagnostics calls around a Bash edit are a model
// round trip or more apart, and that write is not the mode's doing.
const writeWindow = 5 * time.Second

// maxStampRead: larger files are compared by size, modification time and inode only.
const maxStampRead = 4 << 20

// writeWatch is one client's getDiagnostics {uri} awaiting the call after it.
type writeWatch struct {
	path     string
	at       time.Time
	stamp    fileStamp
	openDiff bool // an openDiff came between
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
	if name == "getDiagnostics" {
		if jsonrpc.UnmarshalParams(args, &a) != nil {
			return
		}
	}
	m.mu.Lock()
	c := m.clients[id]
	if c == nil || c.writes.told {
		m.mu.Unlock()
		return
	}
	if name == "openDiff" {
		c.writes.openDiff = true
		m.mu.Unlock()
		return
	}
	prev := c.writes
	c.writes.path = ""
	m.mu.Unlock()

	// The files are read without the lock: the call waits for it, not the other clients.
	skipped := ""
	if prev.path != "" && !prev.openDiff && time.Since(prev.at) < writeWindow && stampFile(prev.path).differs(prev.stamp) {
		skipped = prev.path
	}
	var next writeWatch
	if p := strings.TrimPrefix(a.URI, "file://"); p != "" && filepath.IsAbs(p) && skipped == "" {
		next = writeWatch{path: filepath.Clean(p), at: time.Now(), stamp: stampFile(p)}
	}
	m.mu.Lock()
	c = m.clients[id]
	if c == nil || c.writes.told {
		m.mu.Unlock()
		return
	}
	if skipped != "" {
		c.writes = writeWatch{told: true}
	} else {
		c.writes = next
	}
	m.mu.Unlock()
	if skipped != "" {
		m.log.Info("a Claude client writes edits without diffs", "client", id, "file", skipped)
		if f := m.events.DiffsSkipped; f != nil {
			f(id, skipped)
		}
	}
}
