package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// TestNegotiate: a version this server speaks is answered as asked; any other gets the fallback
// (facts "Handshake": the CLI asks for its newest and accepts an older answer).
func TestNegotiate(t *testing.T) {
	t.Parallel()
	for _, v := range Versions {
		if got := Negotiate(v); got != v {
			t.Errorf("Negotiate(%q) = %q", v, got)
		}
	}
	for _, v := range []string{"", "2099-01-01", "2025-11-25 ", "latest"} {
		if got := Negotiate(v); got != Fallback {
			t.Errorf("Negotiate(%q) = %q, want %q", v, got, Fallback)
		}
	}
}

// pipeConn is one end of an in-process connection: a line-framed jsonrpc.Stream over io.Pipes,
// whose Send and SendLatest write to the same stream (the transport's queue is not this
// package's concern).
type pipeConn struct {
	jsonrpc.Stream
}

func (c pipeConn) Send(msg []byte)       { _ = c.Write(context.Background(), msg) }
func (c pipeConn) SendLatest(msg []byte) { c.Send(msg) }

// noEditor is an editor none of these tests reaches: the tools they call are answered by the
// model alone (a call to any editor method would panic on the nil interface, failing the test).
type noEditor struct{ ide.Editor }

// startSession starts Serve on one end of a pipe with an editor of the given capabilities and
// returns a client connection on the other end.
func startSession(t *testing.T, caps ide.Capabilities) *jsonrpc.Conn {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	server := pipeConn{jsonrpc.NewLineStream(ar, aw)}
	client := jsonrpc.NewConn(jsonrpc.NewLineStream(br, bw), func(context.Context, *jsonrpc.Request) (any, error) { return nil, nil })
	model := ide.New(noEditor{}, ide.EditorInfo{Name: "Test", Caps: caps}, []string{"/ws"}, ide.Events{}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, server, model, "test", nil) }()
	ran := make(chan error, 1)
	go func() { ran <- client.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		client.Close()
		server.Close()
		for _, c := range []chan error{served, ran} {
			select {
			case <-c:
			case <-time.After(10 * time.Second):
				t.Error("session did not end")
			}
		}
	})
	return client
}

func TestSessionHandshake(t *testing.T) {
	t.Parallel()
	c := startSession(t, ide.Capabilities{OpenFile: true})
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := c.Call(testbin.Ctx(t), "initialize", map[string]any{"protocolVersion": "2099-01-01", "clientInfo": map[string]any{"name": "t"}}, &init); err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != Fallback || init.ServerInfo.Name != ServerName {
		t.Errorf("initialize = %+v", init)
	}
	if err := c.Call(testbin.Ctx(t), "ping", nil, nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	// A tool is listed when its capability is present: openFile yes, openDiff (ShowDiff) no.
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := c.Call(testbin.Ctx(t), "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "openFile") || strings.Contains(got, "openDiff") {
		t.Errorf("tools/list = %s", got)
	}
	var res ide.ToolResult
	if err := c.Call(testbin.Ctx(t), "tools/call", map[string]any{"name": "getWorkspaceFolders"}, &res); err != nil || res.IsError {
		t.Errorf("getWorkspaceFolders = %+v, %v", res, err)
	}
}

// TestSessionRefusals: protocol errors are JSON-RPC errors with the code the client can act on;
// tools/call's params are read with exact names (one in the wrong case is an unknown member,
// ignored, as the CLI reads it) and no duplicate keys (issue 16 item 3).
func TestSessionRefusals(t *testing.T) {
	t.Parallel()
	c := startSession(t, ide.Capabilities{})
	for _, tc := range []struct {
		method string
		params string
		code   int
		names  string
	}{
		{"no/such", `{}`, jsonrpc.CodeMethodNotFound, "no/such"},
		{"tools/call", `{}`, jsonrpc.CodeInvalidParams, `"name"`},
		{"tools/call", `{"name":"rm -rf"}`, jsonrpc.CodeInvalidParams, "rm -rf"},
		{"tools/call", `{"name":"getLatestSelection","name":"closeAllDiffTabs"}`, jsonrpc.CodeInvalidParams, `duplicate key "name"`},
		{"tools/call", `{"Name":"getLatestSelection"}`, jsonrpc.CodeInvalidParams, `"name" is required`},
		{"tools/call", `{"name":"rm -rf","NAME":"getLatestSelection"}`, jsonrpc.CodeInvalidParams, "rm -rf"},
		{"tools/call", `{"name":"close_tab","arguments":{"tab_name":"a","tab_name":"b"}}`, jsonrpc.CodeInvalidParams, `duplicate key "tab_name"`},
		{"tools/call", `{"name":"close_tab","arguments":{"Tab_Name":"a"}}`, jsonrpc.CodeInvalidParams, `"tab_name" is required`},
		{"initialize", `{"protocolVersion":7}`, jsonrpc.CodeInvalidParams, `"protocolVersion"`},
	} {
		err := c.Call(testbin.Ctx(t), tc.method, json.RawMessage(tc.params), nil)
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.names) {
			t.Errorf("%s %s = %v, want %d naming %s", tc.method, tc.params, err, tc.code, tc.names)
		}
	}
}
