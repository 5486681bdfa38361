package bridge_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

const mcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// rawMCP sends one raw HTTP request to the bridge's port and returns the status and body.
func rawMCP(t *testing.T, port int, method, path, host string, header map[string]string, body string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	b.WriteString(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n")
	b.WriteString("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
	for k, v := range header {
		b.WriteString(k + ": " + v + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// The model's MCP server at /mcp follows the IDE socket's rules (docs/security.md, "The model's
// MCP server"): its own bearer token, compared in constant time; Origin and foreign Host refused
// before the token is looked at; the IDE's lock token opens nothing here, and the MCP token
// opens nothing on the WebSocket.
func TestMCPAuthMatrix(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	port := b.Port()
	self := "127.0.0.1:" + strconv.Itoa(port)
	auth := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	tests := []struct {
		name   string
		method string
		host   string
		header map[string]string
		status int
	}{
		{"no token", "POST", self, nil, http.StatusUnauthorized},
		{"wrong token", "POST", self, auth(flipLast(b.MCPToken())), http.StatusUnauthorized},
		{"the IDE lock's token", "POST", self, auth(b.Token()), http.StatusUnauthorized},
		{"token without Bearer", "POST", self, map[string]string{"Authorization": b.MCPToken()}, http.StatusUnauthorized},
		{"token in the IDE header", "POST", self, map[string]string{"X-Claude-Code-Ide-Authorization": b.MCPToken()}, http.StatusUnauthorized},
		{"right token but an Origin", "POST", self, map[string]string{"Authorization": "Bearer " + b.MCPToken(), "Origin": "http://127.0.0.1"}, http.StatusForbidden},
		{"right token, foreign Host", "POST", "evil.example:" + strconv.Itoa(port), auth(b.MCPToken()), http.StatusForbidden},
		{"right token, other port in Host", "POST", "127.0.0.1:1", auth(b.MCPToken()), http.StatusForbidden},
		{"right token, PUT", "PUT", self, auth(b.MCPToken()), http.StatusMethodNotAllowed},
		{"right token", "POST", self, auth(b.MCPToken()), http.StatusOK},
		{"right token, localhost", "POST", "localhost:" + strconv.Itoa(port), auth(b.MCPToken()), http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := rawMCP(t, port, tt.method, "/mcp", tt.host, tt.header, mcpInit)
			if status != tt.status {
				t.Fatalf("status %d (%s), want %d", status, body, tt.status)
			}
			if status == http.StatusOK && !strings.Contains(body, `"serverInfo"`) {
				t.Fatalf("no initialize result: %s", body)
			}
			if status != http.StatusOK && strings.Contains(body, "serverInfo") {
				t.Fatalf("refused but answered: %s", body)
			}
		})
	}
	t.Run("MCP token on the WebSocket", func(t *testing.T) {
		c, resp, err := probe.Dial(testbin.Ctx(t), port, b.MCPToken(), nil)
		if err == nil {
			c.Close()
			t.Fatal("the MCP token opened the IDE WebSocket")
		}
		if resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("got %v, want 401", resp)
		}
	})
}

// The listener is loopback only: the machine's other addresses are not served at all.
func TestMCPNotOnOtherAddresses(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	addrs, _ := net.InterfaceAddrs()
	tried := 0
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil {
			continue
		}
		tried++
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), strconv.Itoa(b.Port())), 2*time.Second)
		if err == nil {
			c.Close()
			t.Errorf("the bridge answers on %s", ipn.IP)
		}
	}
	if tried == 0 {
		t.Skip("this machine has no non-loopback IPv4 address to try")
	}
}

// The MCP config file next to the lock is 0600, names /mcp on this port with the token, and
// goes away with the bridge.
func TestMCPConfigFile(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	p := b.MCPConfigPath()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	raw, _ := os.ReadFile(p)
	var c discovery.MCPConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	s := c.MCPServers[discovery.MCPServerName]
	if s.Type != "http" || s.URL != "http://127.0.0.1:"+strconv.Itoa(b.Port())+"/mcp" || s.Headers["Authorization"] != "Bearer "+b.MCPToken() {
		t.Errorf("config %s", raw)
	}
	if b.MCPToken() == b.Token() || len(b.MCPToken()) != 32 {
		t.Errorf("MCP token %q must be its own 128-bit token", b.MCPToken())
	}
	b.Close()
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("config left after Close: %v", err)
	}
}

// The version the bridge is given (main.version, stamped at build) is what both MCP servers
// report: the IDE server on the WebSocket and the code tools' /mcp.
func TestServerInfoVersion(t *testing.T) {
	b, _ := startWith(t, func(c *bridge.Config) { c.Version = "9.8.7-test" })
	c, _, err := probe.Dial(testbin.Ctx(t), b.Port(), b.Token(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Handshake(testbin.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := res["serverInfo"].(map[string]any); info["version"] != "9.8.7-test" {
		t.Errorf("the IDE server's serverInfo %v", res["serverInfo"])
	}
	self := "127.0.0.1:" + strconv.Itoa(b.Port())
	if _, body := rawMCP(t, b.Port(), "POST", "/mcp", self, map[string]string{"Authorization": "Bearer " + b.MCPToken()}, mcpInit); !strings.Contains(body, `"version":"9.8.7-test"`) {
		t.Errorf("the code tools' serverInfo: %s", body)
	}
}
