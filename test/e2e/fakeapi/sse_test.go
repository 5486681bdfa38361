package fakeapi

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// event is one parsed server-sent event.
type event struct {
	name string
	data map[string]any
}

// readSSE parses an SSE body. Every event must carry both an event: line
// and a data: line whose JSON type equals the event name, as the Messages
// API does.
func readSSE(t *testing.T, resp *http.Response) []event {
	t.Helper()
	var evs []event
	var cur event
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
		case line == "":
			if cur.name == "" || cur.data == nil {
				t.Fatalf("incomplete event %+v", cur)
			}
			if cur.data["type"] != cur.name {
				t.Fatalf("event %q has data type %v", cur.name, cur.data["type"])
			}
			evs = append(evs, cur)
			cur = event{}
		}
	}
	if cur.name != "" {
		t.Fatalf("unterminated event %q", cur.name)
	}
	return evs
}

func post(t *testing.T, s *Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const mainBody = `{"model":"m","stream":true,"max_tokens":32000,"tools":[{"name":"Read"}],"messages":[{"role":"user","content":"hi"}]}`

// The stream must be message_start, then per block start/delta.../stop with
// matching indexes, then message_delta carrying the stop reason, then
// message_stop; deltas must reassemble to the scripted text and tool input.
func TestStreamToolUse(t *testing.T) {
	s := New()
	defer s.Close()
	input := map[string]any{"file_path": "/p/日本.txt", "old_string": "a", "new_string": "b"}
	s.Push(Turn{Text: "Let me edit.", Tools: []ToolUse{{ID: "toolu_1", Name: "Edit", Input: input}}})

	resp := post(t, s, mainBody)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	evs := readSSE(t, resp)

	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	if names[0] != "message_start" || names[len(names)-2] != "message_delta" || names[len(names)-1] != "message_stop" {
		t.Fatalf("event order %v", names)
	}
	msg := evs[0].data["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["type"] != "message" {
		t.Fatalf("message_start %v", msg)
	}
	if got := evs[len(evs)-2].data["delta"].(map[string]any)["stop_reason"]; got != "tool_use" {
		t.Fatalf("stop_reason %v, want tool_use", got)
	}

	type blk struct {
		typ, id, name string
		acc           strings.Builder
		open          bool
	}
	blocks := map[int]*blk{}
	for _, e := range evs[1 : len(evs)-2] {
		i := int(e.data["index"].(float64))
		switch e.name {
		case "content_block_start":
			if blocks[i] != nil {
				t.Fatalf("block %d started twice", i)
			}
			cb := e.data["content_block"].(map[string]any)
			b := &blk{typ: cb["type"].(string), open: true}
			if b.typ == "tool_use" {
				b.id, b.name = cb["id"].(string), cb["name"].(string)
			}
			blocks[i] = b
		case "content_block_delta":
			b := blocks[i]
			if b == nil || !b.open {
				t.Fatalf("delta for block %d outside start/stop", i)
			}
			d := e.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				b.acc.WriteString(d["text"].(string))
			case "input_json_delta":
				b.acc.WriteString(d["partial_json"].(string))
			default:
				t.Fatalf("delta type %v", d["type"])
			}
		case "content_block_stop":
			blocks[i].open = false
		default:
			t.Fatalf("unexpected event %q between message_start and message_delta", e.name)
		}
	}
	if len(blocks) != 2 || blocks[0].typ != "text" || blocks[1].typ != "tool_use" {
		t.Fatalf("blocks %+v", blocks)
	}
	if got := blocks[0].acc.String(); got != "Let me edit." {
		t.Fatalf("text %q", got)
	}
	var gotIn map[string]any
	if err := json.Unmarshal([]byte(blocks[1].acc.String()), &gotIn); err != nil {
		t.Fatalf("tool input %q: %v", blocks[1].acc.String(), err)
	}
	if gotIn["file_path"] != "/p/日本.txt" || blocks[1].id != "toolu_1" || blocks[1].name != "Edit" {
		t.Fatalf("tool block %s %s %v", blocks[1].id, blocks[1].name, gotIn)
	}
	if s.Unplayed() != 0 {
		t.Fatalf("turn not consumed")
	}
}

func TestStreamTextEndsTurn(t *testing.T) {
	s := New()
	defer s.Close()
	s.Push(Text("hello"))
	evs := readSSE(t, post(t, s, mainBody))
	if got := evs[len(evs)-2].data["delta"].(map[string]any)["stop_reason"]; got != "end_turn" {
		t.Fatalf("stop_reason %v, want end_turn", got)
	}
}

// Side requests (no tools, or a 1-token quota probe) must be answered
// without consuming the script, and are recorded as not Main.
func TestSideRequestsKeepScript(t *testing.T) {
	s := New()
	defer s.Close()
	s.Push(Text("scripted"))
	for _, body := range []string{
		`{"model":"m","stream":true,"max_tokens":512,"messages":[{"role":"user","content":"title please"}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"quota"}]}`,
		`{"model":"m","stream":true,"max_tokens":1,"tools":[{"name":"Read"}],"messages":[{"role":"user","content":"quota"}]}`,
	} {
		resp := post(t, s, body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d for %s", resp.StatusCode, body)
		}
	}
	if s.Unplayed() != 1 {
		t.Fatalf("side requests consumed the script: %d unplayed", s.Unplayed())
	}
	for _, r := range s.Requests() {
		if r.Main {
			t.Fatalf("request #%d classified main: %s", r.Seq, r.Raw)
		}
	}
	readSSE(t, post(t, s, mainBody))
	if s.Unplayed() != 0 {
		t.Fatalf("main request did not consume the script")
	}
}

// A non-streamed request gets a plain Messages JSON body.
func TestNonStreamed(t *testing.T) {
	s := New()
	defer s.Close()
	resp := post(t, s, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]}`)
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m["type"] != "message" || m["role"] != "assistant" {
		t.Fatalf("body %v", m)
	}
}

func TestRequestText(t *testing.T) {
	s := New()
	defer s.Close()
	s.Push(Text("x"))
	readSSE(t, post(t, s, `{"stream":true,"max_tokens":100,"tools":[{}],"system":[{"type":"text","text":"SYS"}],"messages":[`+
		`{"role":"user","content":"first"},`+
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a"}}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"RESULT"}]},{"type":"text","text":"<new-diagnostics>x</new-diagnostics>"}]}]}`))
	r := s.MainRequests()[0]
	for _, want := range []string{"SYS", "first", `"file_path":"/a"`, "RESULT", "<new-diagnostics>"} {
		if !strings.Contains(r.Text(), want) {
			t.Errorf("Text() lacks %q:\n%s", want, r.Text())
		}
	}
	if strings.Contains(r.LastUserText(), "first") || !strings.Contains(r.LastUserText(), "RESULT") {
		t.Errorf("LastUserText() = %q", r.LastUserText())
	}
	if tr := r.ToolResults(); len(tr) != 1 || tr[0].ToolUseID != "t1" || !strings.Contains(tr[0].Content, "RESULT") {
		t.Errorf("ToolResults() = %+v", tr)
	}
}
