// Command modeltools measures the model's `references` tool on a symbol with 200 uses: the
// time of the language server's own answer (gopls over its pipes, as the bridge's client asks
// it) against the whole tool call (an MCP client over loopback HTTP to /mcp, the bridge finding
// the column, asking the same gopls, reading the files for context and formatting). The
// difference is the bridge's overhead. Both are measured alternately on one warm gopls.
//
//	go run ./bench/modeltools [-n 40] [-gopls PATH]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/child"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

const uses, files = 200, 10

func main() {
	n := flag.Int("n", 40, "measured calls of each kind (after 5 warm-up calls)")
	goplsBin := flag.String("gopls", "", "gopls binary (default: $GOPLS, else on PATH, else $GOPATH/bin)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured calls here")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*n, *goplsBin); err != nil {
		fmt.Fprintln(os.Stderr, "modeltools bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(n int, bin string) error {
	dir, err := os.MkdirTemp("", "bench-modeltools")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	if err := writeModule(dir); err != nil {
		return err
	}
	if bin == "" {
		bin = os.Getenv("GOPLS")
	}
	if bin == "" {
		if bin, err = exec.LookPath("gopls"); err != nil {
			out, _ := exec.Command("go", "env", "GOPATH").Output()
			bin = filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
		}
	}
	g, err := startGopls(bin, dir)
	if err != nil {
		return err
	}
	defer g.stop()

	// The bridge's side: the tools on a loopback HTTP server behind the real check.
	const token = "0123456789abcdef0123456789abcdef"
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	var inSource time.Duration // the tool's time waiting for gopls, summed over the measured calls
	timed := modeltools.SourceFunc(func(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
		t0 := time.Now()
		a, err := g.Request(ctx, path, method, params, result)
		inSource += time.Since(t0) // one call at a time
		return a, err
	})
	h := modeltools.NewHandler(modeltools.Options{Source: timed, Folders: func() []string { return []string{dir} }},
		func(r *http.Request) (int, string) { return transport.CheckBearer(r, port, token) }, nil)
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		HTTPClient:           &http.Client{Transport: bearer{token}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return err
	}
	defer sess.Close()

	target := filepath.Join(dir, "target.go")
	direct := func() (time.Duration, int, error) {
		var locs []json.RawMessage
		params := map[string]any{"textDocument": map[string]string{"uri": "file://" + target},
			"position": map[string]int{"line": 2, "character": 5}, "context": map[string]bool{"includeDeclaration": true}}
		t0 := time.Now()
		_, err := g.Request(ctx, target, "textDocument/references", params, &locs)
		return time.Since(t0), len(locs), err
	}
	tool := func() (time.Duration, string, error) {
		t0 := time.Now()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "references", Arguments: map[string]any{"path": "target.go", "line": 3, "symbol": "Target"}})
		d := time.Since(t0)
		if err != nil {
			return d, "", err
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			return d, "", fmt.Errorf("tool error: %s", text)
		}
		return d, text, nil
	}
	for range 5 {
		if _, _, err := direct(); err != nil {
			return err
		}
		if _, _, err := tool(); err != nil {
			return err
		}
	}
	var ds, ts []time.Duration
	inSource = 0
	var count int
	var last string
	for range n {
		d, c, err := direct()
		if err != nil {
			return err
		}
		t, text, err := tool()
		if err != nil {
			return err
		}
		ds, ts, count, last = append(ds, d), append(ts, t), c, text
	}
	if count != uses+1 || !strings.Contains(last, fmt.Sprintf("(%d in all)", uses+1)) {
		return fmt.Errorf("expected %d places, gopls gave %d; tool said:\n%s", uses+1, count, last)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	md, mt := median(ds), median(ts)
	var sum time.Duration
	for _, t := range ts {
		sum += t
	}
	fmt.Printf("references, %d uses + declaration, %d calls each: gopls alone median %.2f ms (p90 %.2f); through /mcp median %.2f ms (p90 %.2f); bridge overhead %.2f ms median (%.0f%%); of a tool call's mean %.2f ms, %.2f ms wait for gopls; load %s\n",
		uses, n, ms(md), ms(p90(ds)), ms(mt), ms(p90(ts)), ms(mt-md), 100*float64(mt-md)/float64(md),
		ms(sum/time.Duration(n)), ms(inSource/time.Duration(n)), strings.Join(strings.Fields(string(load))[:3], " "))
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func p90(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)*9/10]
}

// writeModule writes a module whose Target has `uses` calls spread over `files` files.
func writeModule(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/bench\n\ngo 1.22\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "target.go"), []byte("package bench\n\nfunc Target() int { return 1 }\n"), 0o644); err != nil {
		return err
	}
	per := uses / files
	for f := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "package bench\n\nfunc use%d() int {\n\tn := 0\n", f)
		for range per {
			b.WriteString("\tn += Target()\n")
		}
		b.WriteString("\treturn n\n}\n")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("use%02d.go", f)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// gopls is a minimal LSP client of one gopls: it opens each file once from disk and forwards.
type gopls struct {
	conn   *jsonrpc.Conn
	cmd    *exec.Cmd
	done   chan struct{}
	mu     sync.Mutex
	opened map[string]bool
}

func startGopls(bin, root string) (*gopls, error) {
	cmd := exec.Command(bin)
	cmd.Dir = root
	stdin, stdout, err := child.Pipes(cmd)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &gopls{cmd: cmd, done: make(chan struct{}), opened: map[string]bool{}}
	g.conn = jsonrpc.NewConn(jsonrpc.NewHeaderStream(stdout, stdin), func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "workspace/configuration" {
			var p struct{ Items []json.RawMessage }
			json.Unmarshal(req.Params, &p)
			return make([]any, len(p.Items)), nil
		}
		return nil, nil
	})
	go func() { defer close(g.done); g.conn.Run(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := g.conn.Call(ctx, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + root, "capabilities": map[string]any{}}, nil); err != nil {
		return nil, err
	}
	g.conn.Notify(ctx, "initialized", map[string]any{})
	return g, nil
}

func (g *gopls) Request(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
	g.mu.Lock()
	open := !g.opened[path]
	g.opened[path] = true
	g.mu.Unlock()
	if open {
		text, err := os.ReadFile(path)
		if err != nil {
			return modeltools.Answer{}, err
		}
		g.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + path, "languageId": "go", "version": 1, "text": string(text)}})
	}
	return modeltools.Answer{Encoding: "utf-16"}, g.conn.Call(ctx, method, params, result)
}

func (g *gopls) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	g.conn.Call(ctx, "shutdown", nil, nil)
	g.conn.Notify(ctx, "exit", nil)
	select {
	case <-g.done:
	case <-time.After(5 * time.Second):
		g.cmd.Process.Kill()
	}
	g.cmd.Wait()
}
