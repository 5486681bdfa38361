package ide

import (
	"bytes"
	"fmt"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// FileURL is the file:// URL of an absolute path, unencoded, as the CLI writes it.
func FileURL(path string) string { return "file://" + path }

// SelectionChanged records the editor's selection and sends selection_changed to every ready
// client, only when it differs from the last one sent. Each client keeps only the latest
// unsent selection, so a flood never queues up.
func (m *Model) SelectionChanged(sel Selection) {
	if sel.FileURL == "" && sel.FilePath != "" {
		sel.FileURL = FileURL(sel.FilePath)
	}
	excluded := m.Excluded(sel.FilePath) // before the lock: it looks at the file system
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.paused || excluded {
		// Never sent, never kept: getLatestSelection has nothing until a shared file is selected.
		m.latest = nil
		return
	}
	msg := encodeSelection(&sel)
	m.latest = &sel
	if bytes.Equal(msg, m.lastSent) {
		return
	}
	m.lastSent, m.lastPath = msg, sel.FilePath
	for _, c := range m.clients {
		if c.listening { // the others get the latest when they start listening
			c.conn.SendLatest(msg)
		}
	}
}

// encodeSelection writes the selection_changed notification by hand: an editor reports a
// selection per cursor move, and encoding it was a tenth of the bridge's CPU in a flood.
func encodeSelection(s *Selection) []byte {
	b := make([]byte, 0, 200+len(s.Text)+len(s.FilePath)+len(s.FileURL))
	b = append(b, `{"jsonrpc":"2.0","method":"selection_changed","params":{"text":`...)
	b = appendString(b, s.Text)
	b = append(b, `,"filePath":`...)
	b = appendString(b, s.FilePath)
	if s.FileURL != "" {
		b = append(b, `,"fileUrl":`...)
		b = appendString(b, s.FileURL)
	}
	b = append(b, `,"selection":{"start":`...)
	b = appendPosition(b, s.Selection.Start)
	b = append(b, `,"end":`...)
	b = appendPosition(b, s.Selection.End)
	b = append(b, `,"isEmpty":`...)
	b = strconv.AppendBool(b, s.Selection.IsEmpty)
	return append(b, '}', '}', '}')
}

func appendPosition(b []byte, p Position) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(p.Line), 10)
	b = append(b, `,"character":`...)
	b = strconv.AppendInt(b, int64(p.Character), 10)
	return append(b, '}')
}

// appendString appends s as a JSON string, as encoding/json would, less its HTML escaping:
// invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are escaped for JavaScript readers.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// LatestSelection returns the last selection the editor reported, or nil.
func (m *Model) LatestSelection() *Selection {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.latest == nil || m.paused {
		return nil
	}
	s := *m.latest
	return &s
}

// AtMentioned sends at_mentioned to every ready client. With none connected it is held for
// MentionHold and delivered to the first client that becomes ready. A relative filePath is taken
// against the first workspace folder.
func (m *Model) AtMentioned(mention Mention) (delivered int, held bool, err error) {
	if mention.FilePath == "" {
		return 0, false, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "filePath" is required`)
	}
	if (mention.LineStart == nil) != (mention.LineEnd == nil) {
		return 0, false, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: give both "lineStart" and "lineEnd", or neither for a whole file`)
	}
	if mention.LineStart != nil && (*mention.LineStart < 0 || *mention.LineEnd < *mention.LineStart) {
		return 0, false, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: want 0 <= "lineStart" <= "lineEnd"`)
	}
	// The CLI shows filePath relative to its own cwd, so a relative path would point elsewhere
	// (spec 000: "filePath is absolute"). Take it against the workspace, as tools do.
	if mention.FilePath, err = m.absPath(mention.FilePath); err != nil {
		return 0, false, err
	}
	if m.Excluded(mention.FilePath) {
		return 0, false, errExcluded(mention.FilePath)
	}
	msg, err := jsonrpc.EncodeNotification("at_mentioned", mention)
	if err != nil {
		return 0, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.clients {
		switch {
		case !c.takesMentions():
			continue
		case c.listening:
			c.conn.Send(msg)
		case c.ready:
			c.queued = append(c.queued, msg)
		default:
			continue
		}
		delivered++
	}
	if delivered == 0 {
		if err := m.held.add(msg, time.Now(), m.MentionHold, m.budget(), m.log); err != nil {
			return 0, false, err
		}
		return 0, true, nil
	}
	return delivered, false, nil
}

// Bounds of the mentions held while no client is connected (issue 35 item 6: 50,000 held took
// the bridge from 17 to 490 MiB). A user who mentions files before Claude is up wants the last
// ones they chose; past either bound the oldest are dropped, and the log says so. Both are far
// below a client's queue (256 messages), which the replay fills at once.
const (
	MaxHeldMentions     = 100
	MaxHeldMentionBytes = 256 << 10
)

// heldMentions are the at_mentioned messages waiting for a client, oldest first, each counted
// in the memory budget until it is sent or dropped. Guarded by the Model's mutex.
type heldMentions struct {
	list    []heldMention
	bytes   int
	dropped int // since the bridge started, for the log
}

type heldMention struct {
	msg  []byte
	at   time.Time
	held *membudget.Grant
}

// add holds msg, after dropping those older than hold and, past the bounds, the oldest. It
// fails only when the memory budget has no room for msg.
func (h *heldMentions) add(msg []byte, now time.Time, hold time.Duration, b *membudget.Budget, log *slog.Logger) error {
	if len(msg) > MaxHeldMentionBytes {
		return fmt.Errorf("a mention of %d bytes is over the %d KiB held for Claude", len(msg), MaxHeldMentionBytes>>10)
	}
	g, err := b.Take(int64(len(msg)), "a held mention")
	if err != nil {
		return err
	}
	h.expire(now, hold)
	h.list = append(h.list, heldMention{msg: msg, at: now, held: g})
	h.bytes += len(msg)
	n := 0
	for len(h.list) > MaxHeldMentions || h.bytes > MaxHeldMentionBytes {
		h.drop()
		n++
	}
	if n > 0 {
		if h.dropped += n; h.dropped == n || h.dropped%1000 < n {
			log.Warn("mentions held for Claude: the oldest dropped", "held", len(h.list), "dropped", h.dropped,
				"bound", fmt.Sprintf("%d mentions, %d KiB", MaxHeldMentions, MaxHeldMentionBytes>>10))
		}
	}
	return nil
}

// expire drops the mentions older than hold: the user has moved on.
func (h *heldMentions) expire(now time.Time, hold time.Duration) {
	for len(h.list) > 0 && now.Sub(h.list[0].at) > hold {
		h.drop()
	}
}

func (h *heldMentions) drop() {
	h.list[0].held.Release()
	h.bytes -= len(h.list[0].msg)
	h.list[0] = heldMention{}
	h.list = h.list[1:]
}

// replay returns the mentions not older than hold, oldest first, and holds none any more.
func (h *heldMentions) replay(now time.Time, hold time.Duration) [][]byte {
	h.expire(now, hold)
	out := make([][]byte, 0, len(h.list))
	for _, m := range h.list {
		out = append(out, m.msg)
		m.held.Release()
	}
	h.list, h.bytes = nil, 0
	return out
}

// HeldMentions returns how many mentions are held for the next client and their size.
func (m *Model) HeldMentions() (n, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.held.list), m.held.bytes
}

// selectionResult is the text of getCurrentSelection and getLatestSelection.
func selectionResult(s *Selection, none string) any {
	if s == nil {
		return map[string]any{"success": false, "message": none}
	}
	return struct {
		Success   bool         `json:"success"`
		Text      string       `json:"text"`
		FilePath  string       `json:"filePath"`
		FileURL   string       `json:"fileUrl,omitempty"`
		Selection SelectionPos `json:"selection"`
	}{true, s.Text, s.FilePath, s.FileURL, s.Selection}
}
