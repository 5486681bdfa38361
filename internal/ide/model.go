// Package ide holds every rule of the IDE protocol about clients, diffs, selections and tools, in
// one place and without sockets: sessions call it, it calls an Editor, editors report back to it.
package ide

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// ClientID names one WebSocket connection. A reconnecting CLI is a new client.
type ClientID uint64

// Client is the Model's way to reach one connected Claude. Both methods must not block: the
// transport queues (Send) or keeps only the latest (SendLatest) and drops a client that does not
// read. A client may also have `Agent() string` (ShowDiffParams.Agent) and `TakesMentions()
// bool`: false for an agent without @-mentions (internal/companion), which is then never counted
// as a mention's receiver, so a mention made while only such a client is connected is held.
type Client interface {
	Send(msg []byte)
	SendLatest(msg []byte)
}

// takesMentions reports whether c is sent at_mentioned.
func (c *client) takesMentions() bool {
	t, ok := c.conn.(interface{ TakesMentions() bool })
	return !ok || t.TakesMentions()
}

// Events are told to whoever runs the editor (connection status). Nil funcs are skipped.
type Events struct {
	// ClientConnected and ClientDisconnected: agent is the client's CLI ("claude", "gemini",
	// "qwen"; ShowDiffParams.Agent), now who is connected after the change.
	ClientConnected    func(id ClientID, agent string, now Agents)
	ClientDisconnected func(id ClientID, agent string, now Agents)
	FoldersChanged     func(folders []string)
	// ClientPID: the client said which process it is (the CLI's ide_connected), so that an
	// editor running several Claude sessions can tell whose diff is whose.
	ClientPID func(id ClientID, pid int)
	// DiffRejected: the user rejected a pending proposal of the client in the editor (the
	// client's openDiff is answered DIFF_REJECTED). Not a diff Claude closed.
	DiffRejected func(id ClientID, tab string)
	// DiffsSkipped: the client wrote path with an Edit/Write and showed no diff: its permission
	// mode skips diffs (skipped.go). Told at most once per client.
	DiffsSkipped func(id ClientID, path string)
}

// Model is the state of one IDE: its clients, diffs, latest selection and held mentions. All
// state lives in this struct, guarded by mu, and changes only in the methods of this package.
// Methods are safe for concurrent use.
type Model struct {
	editor Editor
	info   EditorInfo
	events Events
	log    *slog.Logger

	// MentionHold is how long an at_mentioned waits for a client when none is connected.
	MentionHold time.Duration
	// EditorTimeout bounds each editor call; ShowDiffTimeout bounds showing a diff.
	EditorTimeout, ShowDiffTimeout time.Duration
	// Budget holds the text of pending proposals (nil: membudget.Default, the process's).
	Budget *membudget.Budget

	mu       sync.Mutex
	nextID   ClientID
	clients  map[ClientID]*client
	diffs    map[string]*diff // by tab_name
	folders  []string
	latest   *Selection
	lastSent []byte       // encoded selection_changed last sent, to send only on change
	lastPath string       // the file of lastSent
	held     heldMentions // selection.go
	closed   bool
	drains   map[ClientID]func(context.Context) error
	paused   bool // sharing paused by the user (sharing.go)

	observer atomic.Pointer[observerBox] // observer.go
}

// SetDrain registers how to wait until client id's session has answered every call it received;
// Close uses it so that settled openDiff answers go out before the clients are closed.
func (m *Model) SetDrain(id ClientID, f func(context.Context) error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drains[id] = f
}

type client struct {
	id        ClientID
	conn      Client
	ready     bool       // sent notifications/initialized: it counts as connected
	listening bool       // acts on notifications: they go out to it
	queued    [][]byte   // mentions made after ready, before listening
	writes    writeWatch // skipped.go
}

// agent is the CLI behind the client: its conn's Agent(), "claude" when it has none.
func (c *client) agent() string {
	if ag, ok := c.conn.(interface{ Agent() string }); ok {
		return ag.Agent()
	}
	return "claude"
}

// New returns a Model for editor. folders are absolute workspace folders.
func New(editor Editor, info EditorInfo, folders []string, events Events, log *slog.Logger) *Model {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	info.Encoding = cmp.Or(info.Encoding, UTF8)
	if info.Timeout <= 0 {
		info.Timeout = 10 * time.Second
	}
	if info.Exclude == nil {
		info.Exclude, _ = exclude.New(nil) // the default compiles
	}
	return &Model{
		editor: editor, info: info, events: events, log: log,
		MentionHold: 30 * time.Second, EditorTimeout: info.Timeout, ShowDiffTimeout: 3 * info.Timeout,
		clients: map[ClientID]*client{}, diffs: map[string]*diff{}, folders: folders, drains: map[ClientID]func(context.Context) error{},
	}
}

// Info returns the editor's description.
func (m *Model) Info() EditorInfo { return m.info }

// Connect registers a new client; it gets notifications once Ready.
func (m *Model) Connect(c Client) ClientID {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	m.clients[m.nextID] = &client{id: m.nextID, conn: c}
	return m.nextID
}

// Ready marks the client's handshake done (notifications/initialized): notifications go out to
// it from now on, and the editor is told it connected.
func (m *Model) Ready(id ClientID) {
	m.mu.Lock()
	c := m.clients[id]
	if c == nil || c.ready {
		m.mu.Unlock()
		return
	}
	c.ready = true
	now := m.agentsLocked()
	m.mu.Unlock()
	if f := m.events.ClientConnected; f != nil {
		f(id, c.agent(), now)
	}
}

// ClientPID records the process a client says it is (ide_connected's pid) and tells the editor.
// A pid is only a hint (reused, and meaningless across machines or containers): it picks where
// a diff is shown, never who may decide it.
func (m *Model) ClientPID(id ClientID, pid int) {
	m.mu.Lock()
	_, ok := m.clients[id]
	m.mu.Unlock()
	if f := m.events.ClientPID; f != nil && ok && pid > 0 {
		f(id, pid)
	}
}

// Listening marks the point from which a ready client acts on notifications, and sends it,
// once, what it has not been told: the latest selection, the @-mentions held while no client was
// connected and those made since it connected. The CLI (2.1.328) drops notifications that arrive
// before it has finished listing the server's tools, prompts and resources, so the session calls
// this a little after that (see mcp.Serve).
func (m *Model) Listening(id ClientID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.clients[id]
	if c == nil || !c.ready || c.listening {
		return // not initialized: a client that skipped notifications/initialized is never told
	}
	c.listening = true
	if m.lastSent != nil && !m.paused {
		c.conn.SendLatest(m.lastSent)
	}
	if !c.takesMentions() {
		return
	}
	for _, msg := range m.held.replay(time.Now(), m.MentionHold) {
		c.conn.Send(msg)
	}
	for _, msg := range c.queued {
		c.conn.Send(msg)
	}
	c.queued = nil
}

// Disconnect forgets a client. Its pending diffs are settled as rejected (never as an accept);
// a diff the user already accepted for it stays while its file does not hold the accepted text,
// so that text is not lost (see releaseWritten).
func (m *Model) Disconnect(id ClientID) {
	m.mu.Lock()
	c := m.clients[id]
	delete(m.clients, id)
	delete(m.drains, id)
	closed := m.settleLocked(func(d *diff) bool { return d.owner == id && d.state == pending })
	now := m.agentsLocked()
	m.mu.Unlock()
	m.closeViews(closed)
	m.releaseWritten()
	if f := m.events.ClientDisconnected; f != nil && c != nil && c.ready {
		f(id, c.agent(), now)
	}
}

// Clients returns how many clients finished their handshake.
func (m *Model) Clients() int { return m.Agents().Total() }

// Agents is who is connected: the clients that finished their handshake, counted by CLI
// ("claude", "gemini", "qwen").
type Agents map[string]int

// Agents returns who is connected now.
func (m *Model) Agents() Agents {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.agentsLocked()
}

func (m *Model) agentsLocked() Agents {
	a := Agents{}
	for _, c := range m.clients {
		if c.ready {
			a[c.agent()]++
		}
	}
	return a
}

// Total is how many clients a counts.
func (a Agents) Total() int {
	n := 0
	for _, k := range a {
		n += k
	}
	return n
}

// Line says who a is, for people: "no clients", "1 client (Claude)", "3 clients (Claude 2,
// Gemini 1)"; Claude first, then by name; an agent counted 0 is left out.
func (a Agents) Line() string {
	sortKey := func(agent string) string { // Claude sorts first
		if AgentTitle(agent) == "Claude" {
			return ""
		}
		return agent
	}
	parts, last := []string{}, ""
	for _, agent := range slices.SortedFunc(maps.Keys(a), func(x, y string) int { return strings.Compare(sortKey(x), sortKey(y)) }) {
		if a[agent] > 0 {
			last = AgentTitle(agent)
			parts = append(parts, fmt.Sprintf("%s %d", last, a[agent]))
		}
	}
	switch n := a.Total(); {
	case len(parts) == 0:
		return "no clients"
	case n == 1:
		return "1 client (" + last + ")"
	default:
		return fmt.Sprintf("%d clients (%s)", n, strings.Join(parts, ", "))
	}
}

// Listeners returns how many clients are being sent notifications (see Listening).
func (m *Model) Listeners() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.clients {
		if c.listening {
			n++
		}
	}
	return n
}

// Folders returns the workspace folders.
func (m *Model) Folders() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.folders...)
}

// SetFolders replaces the workspace folders (the editor's workspace changed).
func (m *Model) SetFolders(folders []string) {
	m.mu.Lock()
	m.folders = append([]string(nil), folders...)
	m.mu.Unlock()
	if f := m.events.FoldersChanged; f != nil {
		f(folders)
	}
}

// Close settles every pending diff as rejected. It is called when the bridge shuts down.
func (m *Model) Close() {
	m.mu.Lock()
	m.closed = true
	m.settleLocked(func(d *diff) bool { return d.state == pending })
	m.held.replay(time.Now(), 0) // nothing will hear them: let them and their budget go
	drains := slices.Collect(maps.Values(m.drains))
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	for _, f := range drains {
		f(ctx)
	}
}

func (m *Model) editorCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, m.EditorTimeout)
}
