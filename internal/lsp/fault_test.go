package lsp_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// fakeServer builds testdata/fakels, a server that fails on cue (no real server can be made to
// hang or crash at a chosen moment).
func fakeServer(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fakels-")
		if err != nil {
			fakeErr = err
			return
		}
		fakeBin = filepath.Join(dir, "fakels")
		if runtime.GOOS == "windows" {
			fakeBin += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", fakeBin, "./testdata/fakels").CombinedOutput()
		if err != nil {
			fakeErr = errors.New(string(out))
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

func fakeFile(t *testing.T) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "a.fake")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// The brief's bound: a server that never answers gives a clear error within the start bound,
// never a hang.
func TestHangingServerGivesErrorWithinBound(t *testing.T) {
	t.Parallel()
	dir, path := fakeFile(t)
	m := newManager(t, dir, lsp.Config{
		Servers:      []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "hang"}}},
		StartTimeout: 2 * time.Second,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := m.Diagnostics(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "no answer to initialize within 2s") || !strings.Contains(err.Error(), "fakels") {
		t.Fatalf("Diagnostics on a hanging server: %v, want an error naming the server and the bound", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the bound was not kept")
	}
	// The generic request is bounded the same way.
	if err := m.Request(ctx, path, "textDocument/hover", map[string]any{}, nil); err == nil {
		t.Fatal("Request on a hanging server succeeded")
	}
}

func TestCrashOnInitializeIsAnError(t *testing.T) {
	t.Parallel()
	dir, path := fakeFile(t)
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "crash-init"}}}})
	_, err := m.Diagnostics(context.Background(), path)
	if !errors.Is(err, lsp.ErrServerExited) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Diagnostics on a server that crashes at initialize: %v, want ErrServerExited with its status", err)
	}
}

// A server that answers but never publishes: an empty list once Wait has passed.
func TestSilentServerGivesEmptyWithinWait(t *testing.T) {
	t.Parallel()
	dir, path := fakeFile(t)
	m := newManager(t, dir, lsp.Config{
		Servers: []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "silent"}}},
		Wait:    time.Second,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := m.Diagnostics(ctx, path)
	if err != nil || len(got) != 1 || len(got[0].Diagnostics) != 0 || got[0].Path != path {
		t.Fatalf("Diagnostics on a silent server: %+v, %v; want the file with no diagnostics", got, err)
	}
}

// A crash during a request is an error naming it; the next request starts the server again.
// Its stderr goes to the log, escape sequences quoted.
func TestCrashedServerRestartsOnNextRequest(t *testing.T) {
	t.Parallel()
	dir, path := fakeFile(t)
	var logBuf testbin.Buffer
	m := newManager(t, dir, lsp.Config{
		Servers: []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "crash-once", filepath.Join(dir, "crashed")}}},
		Log:     slog.New(slog.NewTextHandler(&logBuf, nil)),
	})
	ctx := context.Background()
	_, err := m.Diagnostics(ctx, path)
	if !errors.Is(err, lsp.ErrServerExited) {
		t.Fatalf("Diagnostics while the server crashes: %v, want ErrServerExited", err)
	}
	got, err := m.Diagnostics(ctx, path)
	if err != nil || len(got) != 1 || len(got[0].Diagnostics) != 1 || got[0].Diagnostics[0].Message != "fake warning" {
		t.Fatalf("Diagnostics after the crash: %+v, %v; want the restarted server's warning", got, err)
	}
	m.Close()
	log := logBuf.String()
	if strings.Contains(log, "\x1b") {
		t.Errorf("the server's escape sequence reached the log raw:\n%q", log)
	}
	if !strings.Contains(log, `\x1b[31mfatal\x1b[0m: crashing on purpose`) {
		t.Errorf("the server's stderr is not in the log, quoted:\n%s", log)
	}
	if !strings.Contains(log, "starting it again") {
		t.Errorf("the restart is not logged:\n%s", log)
	}
}

func TestNoServerForExtension(t *testing.T) {
	t.Parallel()
	dir, path := fakeFile(t)
	m := newManager(t, dir, lsp.Config{})
	_, err := m.Diagnostics(context.Background(), path)
	if !errors.Is(err, lsp.ErrNoServer) || !strings.Contains(err.Error(), ".fake") {
		t.Fatalf("Diagnostics without a server: %v, want ErrNoServer naming .fake", err)
	}
}

func TestClosedManager(t *testing.T) {
	t.Parallel()
	dir, path := fakeFile(t)
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "silent"}}}, Wait: time.Second})
	if _, err := m.Diagnostics(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := m.Diagnostics(context.Background(), path); !errors.Is(err, lsp.ErrClosed) {
		t.Fatalf("Diagnostics after Close: %v, want ErrClosed", err)
	}
}

// Issue 25 item 5: a hostile server published diagnostics for 300,000 files (30,000 under
// -race) and the bridge kept them all. Now at most MaxDiagnosticFiles are kept beside the open documents (the open file's
// own diagnostics always), the rest dropped with one log line, and getDiagnostics still answers.
func TestDiagnosticsFloodBounded(t *testing.T) {
	t.Parallel()
	dir, path := fakeFile(t)
	var logBuf testbin.Buffer
	m := newManager(t, dir, lsp.Config{
		Servers: []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "flood", floodFiles}}},
		Log:     slog.New(slog.NewTextHandler(&logBuf, nil)),
		Wait:    time.Minute, // the flood comes before the open file's own publication
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got, err := m.Diagnostics(ctx, path)
	if err != nil || len(got) != 1 || len(got[0].Diagnostics) != 1 {
		t.Fatalf("Diagnostics of the open file: %+v, %v", got, err)
	}
	all, err := m.Diagnostics(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) > lsp.MaxDiagnosticFiles+1 || len(all) < lsp.MaxDiagnosticFiles {
		t.Fatalf("diagnostics kept for %d files, want %d and the open one", len(all), lsp.MaxDiagnosticFiles)
	}
	if !slices.ContainsFunc(all, func(fd lsp.FileDiagnostics) bool { return fd.Path == path }) {
		t.Fatal("the open file's diagnostics were dropped")
	}
	if n := strings.Count(logBuf.String(), "diagnostics dropped"); n < 1 || n > 30 {
		t.Fatalf("%d log lines about dropped diagnostics:\n%.2000s", n, logBuf.String())
	}
}
