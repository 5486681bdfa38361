package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// marked waits briefly for a marker a program writes as it starts (getDiagnostics answers
// after the start failed, so it is there by then; the wait covers a slow fork only).
func marked(p string) bool {
	for i := 0; i < 20; i++ {
		if _, err := os.Stat(p); err == nil {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func noDiagnostics(t *testing.T, s *server, path string) {
	t.Helper()
	got := getDiagnostics(t, s, map[string]any{"uri": "file://" + path})
	if len(got) != 1 || len(got[0].Diagnostics) != 0 {
		t.Errorf("getDiagnostics %s = %+v, want one entry with no diagnostics", path, got)
	}
}

// TestTrustCommand: trust, --check, --list, --revoke; the store is 0600 files in a 0700 dir of
// the user's config directory.
func TestTrustCommand(t *testing.T) {
	h := newHome(t)
	sub := filepath.Join(h.ws, "sub")
	os.Mkdir(sub, 0o755)
	if out, _, code := h.command(t, h.ws, "trust", "--check", sub); code != 1 || !strings.Contains(out, "not trusted: "+sub) {
		t.Errorf("--check before: %d %q", code, out)
	}
	if out, _, code := h.command(t, h.ws, "trust"); code != 0 || !strings.Contains(out, "trusted: "+h.ws) || !strings.Contains(out, "language servers") {
		t.Errorf("trust: %d %q", code, out)
	}
	if out, _, code := h.command(t, h.ws, "trust", "--check", sub); code != 0 || !strings.Contains(out, "through "+h.ws) {
		t.Errorf("--check after: %d %q", code, out)
	}
	if out, _, code := h.command(t, h.ws, "trust", "--list"); code != 0 || !strings.HasPrefix(out, h.ws+"\t(since ") {
		t.Errorf("--list: %d %q", code, out)
	}
	dir := filepath.Join(h.dir, "xdg", "claude-ide-bridge", "trusted")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store %s: %v %v", dir, fi, err)
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if fi, _ := os.Stat(filepath.Join(dir, de.Name())); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", de.Name(), fi.Mode())
		}
	}
	if _, stderr, code := h.command(t, h.ws, "trust", "--revoke", sub); code != 1 || !strings.Contains(stderr, "trusted because "+h.ws) {
		t.Errorf("--revoke sub: %d %q", code, stderr)
	}
	if out, _, code := h.command(t, h.ws, "trust", "--revoke", h.ws); code != 0 || !strings.Contains(out, "no longer trusted") {
		t.Errorf("--revoke: %d %q", code, out)
	}
	if _, _, code := h.command(t, h.ws, "trust", "--check", sub); code != 1 {
		t.Errorf("--check after revoke: %d", code)
	}
}

// rustAnalyzer is the rust-analyzer the test runs: rustup's proxy when this machine has one
// (its rust-toolchain.toml handling is the attack), else a stand-in on PATH that records that
// it ran. It returns PATH and the environment to add, and the marker a run leaves.
func rustAnalyzer(t *testing.T, ws string) (env []string, marker string, real bool) {
	t.Helper()
	marker = filepath.Join(filepath.Dir(ws), "ran-rust-analyzer")
	// The repository's own "toolchain": a rust-analyzer that leaves the marker.
	evil := filepath.Join(ws, "evil-toolchain")
	writeScript(t, filepath.Join(evil, "bin", "rust-analyzer"), "echo workspace > "+marker)
	os.WriteFile(filepath.Join(ws, "rust-toolchain.toml"), []byte("[toolchain]\npath = \""+evil+"\"\n"), 0o644)
	if p, err := exec.LookPath("rust-analyzer"); err == nil {
		if r, _ := filepath.EvalSymlinks(p); filepath.Base(r) == "rustup" {
			home, _ := os.UserHomeDir()
			rh, ch := os.Getenv("RUSTUP_HOME"), os.Getenv("CARGO_HOME")
			if rh == "" {
				rh = filepath.Join(home, ".rustup")
			}
			if ch == "" {
				ch = filepath.Join(home, ".cargo")
			}
			t.Logf("rust-analyzer is rustup's proxy: %s", p)
			return []string{"RUSTUP_HOME=" + rh, "CARGO_HOME=" + ch}, marker, true
		}
	}
	bin := filepath.Join(t.TempDir(), "bin")
	writeScript(t, filepath.Join(bin, "rust-analyzer"), "echo stand-in > "+marker)
	t.Logf("no rustup proxy here: a stand-in rust-analyzer on PATH")
	return []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, marker, false
}

// TestUntrustedRustToolchain (issue 25 item 1): serve in a cloned repository whose
// rust-toolchain.toml points rustup at a program of the repository's runs nothing: getDiagnostics
// answers no diagnostics (not an error) and one log line says why; trusting the folder starts the
// server (and so the proxy runs what the folder chose, as the user now allows).
func TestUntrustedRustToolchain(t *testing.T) {
	h := newHome(t)
	os.WriteFile(filepath.Join(h.ws, "Cargo.toml"), []byte("[package]\nname = \"x\"\nversion = \"0.1.0\"\n"), 0o644)
	src := filepath.Join(h.ws, "src", "main.rs")
	os.MkdirAll(filepath.Dir(src), 0o755)
	os.WriteFile(src, []byte("fn main() {}\n"), 0o644)
	env, marker, _ := rustAnalyzer(t, h.ws)
	s := h.serve(t, env, "--auto", "accept") // no --lsp: the servers found on $PATH
	for range 3 {
		noDiagnostics(t, s, src)
	}
	if marked(marker) {
		t.Fatal("rust-analyzer ran in an untrusted workspace")
	}
	s.waitFor(t, reText("language servers (getDiagnostics): off until this folder is trusted"))
	if n := strings.Count(s.errOut.String(), "language servers are off"); n != 1 {
		t.Errorf("%d log lines say the servers are off, want 1:\n%s", n, s.errOut.String())
	}
	h.trust(t, h.ws)
	getDiagnosticsRaw(t, s, src)
	if !marked(marker) {
		t.Error("trusted, rust-analyzer still did not start")
	}
}

// TestUntrustedTsserver: typescript-language-server runs the tsserver.js of the workspace's
// node_modules or a parent folder's. A stand-in of it (this machine has no
// typescript-language-server) resolves tsserver.js as the real one does (up from its working
// directory) and runs it with node: nothing runs without trust; trusting the workspace runs it.
func TestUntrustedTsserver(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	h := newHome(t)
	parent := h.ws
	bin := filepath.Join(t.TempDir(), "bin")
	writeScript(t, filepath.Join(bin, "typescript-language-server"),
		`d=$PWD; while [ "$d" != / ]; do f="$d/node_modules/typescript/lib/tsserver.js"; if [ -f "$f" ]; then exec node "$f"; fi; d=$(dirname "$d"); done; exit 1`)
	tsserver := func(dir, name string) string {
		marker := filepath.Join(h.dir, "ran-"+name)
		p := filepath.Join(dir, "node_modules", "typescript", "lib", "tsserver.js")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("require('fs').writeFileSync("+jsString(marker)+", 'ran')\n"), 0o644)
		return marker
	}
	parentMarker := tsserver(parent, "parent")
	for _, c := range []struct{ name, ws string }{{"own", filepath.Join(parent, "own")}, {"parents", filepath.Join(parent, "bare")}} {
		t.Run(c.name, func(t *testing.T) {
			os.MkdirAll(c.ws, 0o755)
			marker := parentMarker
			if c.name == "own" {
				marker = tsserver(c.ws, "own")
			}
			src := filepath.Join(c.ws, "index.ts")
			os.WriteFile(src, []byte("export const x = 1\n"), 0o644)
			hw := home{dir: h.dir, cfg: h.cfg, ws: c.ws}
			s := hw.serve(t, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, "--auto", "accept")
			noDiagnostics(t, s, src)
			if marked(marker) {
				t.Fatal("a tsserver.js of the folder ran without trust")
			}
			hw.trust(t, c.ws)
			getDiagnosticsRaw(t, s, src)
			if !marked(marker) {
				t.Error("trusted, typescript-language-server did not start")
			}
		})
	}
}

func jsString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// TestServerProgramNotFromWorkspace: even in a trusted workspace a server program is never one
// of the workspace's (a PATH entry inside it, absolute or relative) nor one in a folder another
// user can write; the search goes on to a safe entry, or the server stays off with no error.
func TestServerProgramNotFromWorkspace(t *testing.T) {
	h := newHome(t)
	h.trust(t, h.ws)
	src := filepath.Join(h.ws, "main.go")
	os.WriteFile(src, []byte("package main\n"), 0o644)
	mark := func(name string) string { return filepath.Join(h.dir, "ran-"+name) }
	writeScript(t, filepath.Join(h.ws, "bin", "gopls"), "echo > "+mark("workspace-abs"))
	writeScript(t, filepath.Join(h.ws, "rel", "gopls"), "echo > "+mark("workspace-rel"))
	safe := filepath.Join(t.TempDir(), "bin")
	writeScript(t, filepath.Join(safe, "gopls"), "echo > "+mark("safe"))
	open := filepath.Join(t.TempDir(), "open")
	writeScript(t, filepath.Join(open, "gopls"), "echo > "+mark("open"))
	os.Chmod(open, 0o777)

	s := h.serve(t, []string{"PATH=" + filepath.Join(h.ws, "bin") + ":rel::" + safe + ":/usr/bin:/bin"}, "--auto", "accept", "--lsp", ".go=gopls")
	getDiagnosticsRaw(t, s, src)
	for _, m := range []string{"workspace-abs", "workspace-rel"} {
		if marked(mark(m)) {
			t.Errorf("the workspace's gopls ran (%s)", m)
		}
	}
	if !marked(mark("safe")) {
		t.Error("the gopls of the safe PATH entry did not run")
	}

	s = h.serve(t, []string{"PATH=" + open + ":" + safe + ":/usr/bin:/bin"}, "--auto", "accept", "--lsp", ".go=gopls")
	noDiagnostics(t, s, src)
	noDiagnostics(t, s, src)
	if marked(mark("open")) {
		t.Error("gopls ran from a folder every user can write")
	}
	if n := strings.Count(s.errOut.String(), "can be written by other users"); n != 1 {
		t.Errorf("%d log lines name the unsafe folder, want 1:\n%s", n, s.errOut.String())
	}
}

// getDiagnosticsRaw calls getDiagnostics and ignores its answer (a server that starts and
// exits at once makes it an error).
func getDiagnosticsRaw(t *testing.T, s *server, path string) {
	t.Helper()
	c := s.claude(t)
	c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{"uri": "file://" + path})
}

// TestServeTrustPrompt: serve in a real terminal (tmux) asks before starting language servers
// in an untrusted folder, says what trust enables, and takes Enter as No; y records the trust.
// In a folder under a 1777 parent (issue 35 item 4) the question names that folder and why, and
// y records it accepted, so the servers start.
func TestServeTrustPrompt(t *testing.T) {
	tmux := harness.Need(t, "tmux", "the trust prompt")
	h := newHome(t)
	os.WriteFile(filepath.Join(h.ws, "main.go"), []byte("package main\n"), 0o644) // gopls is offered for a folder with Go files
	dir := t.TempDir()
	bin0 := filepath.Join(dir, "bin")
	writeScript(t, filepath.Join(bin0, "gopls"), "echo > "+filepath.Join(h.dir, "ran-gopls"))
	shared := filepath.Join(dir, "shared")
	sharedWS := filepath.Join(shared, "ws")
	os.MkdirAll(sharedWS, 0o755)
	os.WriteFile(filepath.Join(sharedWS, "main.go"), []byte("package main\n"), 0o644)
	os.Chmod(shared, os.ModeSticky|0o777)
	env := harness.ShellExports(h.env("TERM=xterm-256color", "GORACE=atexit_sleep_ms=0", "PATH="+bin0+":/usr/bin:/bin"))
	for _, c := range []struct{ answer, ws string }{{"Enter", h.ws}, {"y", h.ws}, {"y", sharedWS}} {
		tm := harness.StartTmux(t, tmux, 200, 40, env+"cd '"+c.ws+"'\nexec '"+bin+"' serve --workspace '"+c.ws+"'\n")
		sc := tm.WaitScreen("? [y/N]")
		wants := []string{c.ws + " is not a trusted folder", "can run code it contains", "Language servers found: gopls"}
		if c.ws == sharedWS {
			wants = append(wants, shared+" can be written by other users (mode 1777: sticky, but any user can create new files and folders in it)",
				"what another user puts in a folder they can write would run as you", "Trust "+c.ws+", and what other users put in the folders named above? [y/N]")
		}
		for _, want := range wants {
			if !strings.Contains(sc, want) {
				t.Errorf("the prompt lacks %q:\n%s", want, sc)
			}
		}
		if c.answer == "Enter" {
			tm.Keys("Enter")
			tm.WaitScreen("not trusted: language servers stay off")
			tm.WaitScreen("language servers (getDiagnostics): off until this folder is trusted")
			if _, _, code := h.command(t, c.ws, "trust", "--check", c.ws); code != 1 {
				t.Error("Enter trusted the folder")
			}
		} else {
			tm.Keys("y", "Enter")
			tm.WaitScreen("trusted (revoke: claude-ide-bridge trust --revoke")
			tm.WaitScreen("language servers (getDiagnostics): " + filepath.Join(bin0, "gopls") + " (.go)")
			if out, _, code := h.command(t, c.ws, "trust", "--check", c.ws); code != 0 {
				t.Errorf("y did not trust the folder: %s", out)
			}
		}
		tm.Run("kill-server")
	}
}

// TestUntrustedEveryServerFamily: every server serve finds on $PATH (stand-ins that record that
// they ran: gopls, rust-analyzer, pyright-langserver, typescript-language-server, clangd) stays
// off in an untrusted workspace, each file kind answers no diagnostics; trusted, each starts.
func TestUntrustedEveryServerFamily(t *testing.T) {
	h := newHome(t)
	bin := filepath.Join(t.TempDir(), "bin")
	files := map[string]string{"gopls": "main.go", "rust-analyzer": "main.rs", "pyright-langserver": "main.py", "typescript-language-server": "main.ts", "clangd": "main.c"}
	for name, file := range files {
		writeScript(t, filepath.Join(bin, name), "echo > "+filepath.Join(h.dir, "ran-"+name))
		os.WriteFile(filepath.Join(h.ws, file), []byte("x\n"), 0o644)
	}
	s := h.serve(t, []string{"PATH=" + bin + ":/usr/bin:/bin"}, "--auto", "accept")
	for _, file := range files {
		noDiagnostics(t, s, filepath.Join(h.ws, file))
	}
	for name := range files {
		if marked(filepath.Join(h.dir, "ran-"+name)) {
			t.Errorf("%s ran in an untrusted workspace", name)
		}
	}
	h.trust(t, h.ws)
	for name, file := range files {
		getDiagnosticsRaw(t, s, filepath.Join(h.ws, file))
		if !marked(filepath.Join(h.dir, "ran-"+name)) {
			t.Errorf("trusted, %s did not start", name)
		}
	}
}
