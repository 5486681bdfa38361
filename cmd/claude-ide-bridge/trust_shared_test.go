//go:build unix

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// tsserverSearch is a stand-in typescript-language-server that finds tsserver.js as the real one
// does and runs it with node. The real rule, typescript-language-server's findPathToModule
// (src/utils/modules-resolver.ts), called by getWorkspaceVersion with each workspace folder and
// MODULE_FOLDERS = ['node_modules/typescript/lib', ...]:
//
//	const candidates = moduleNames.map(moduleName => path.resolve(dir, moduleName));
//	const modulePath = candidates.find(fs.existsSync);
//	...
//	const parent = path.resolve(dir, '..');
//	if (parent !== dir) { return findPathToModule(parent, moduleNames); }
//
// so every folder up to / is searched; the version found is used when lib/../package.json has a
// "version", and its lib/tsserver.js is what runs.
const tsserverSearch = `d=$PWD
while :; do
  lib="$d/node_modules/typescript/lib"
  if [ -e "$lib" ] && grep -q '"version"' "$lib/../package.json" 2>/dev/null; then exec node "$lib/tsserver.js"; fi
  [ "$d" = / ] && exit 1
  d=$(dirname "$d")
done`

// TestSharedParentTsserver (issue 35 item 4): the victim trusted their own workspace while its
// parent was theirs; the parent is then shared as /tmp is (1777) and another user (uid 65534)
// puts node_modules/typescript there. typescript-language-server would run that tsserver.js as
// the victim. Now: the server never starts, serve's line and one log line name the folder;
// `trust` alone refuses and says what to run; `trust --shared`, the explicit acceptance of that
// case, lets it start.
func TestSharedParentTsserver(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	h := newHome(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	if x, _ := trust.Exposed(base); len(x) > 0 {
		t.Fatalf("the tests' temporary folder is shared (%s): testbin.Main should have moved TMPDIR", x[0].Why)
	}
	shared := filepath.Join(base, "shared")
	victim := filepath.Join(shared, "victim")
	os.MkdirAll(victim, 0o755)
	src := filepath.Join(victim, "index.ts")
	os.WriteFile(src, []byte("export const x = 1\n"), 0o644)
	bin := filepath.Join(t.TempDir(), "bin")
	writeScript(t, filepath.Join(bin, "typescript-language-server"), tsserverSearch)
	env := []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
	hv := home{dir: h.dir, cfg: h.cfg, ws: victim}
	hv.trust(t, victim)

	os.Chmod(shared, os.ModeSticky|0o777)
	marker := filepath.Join(h.dir, "ran-attacker")
	lib := filepath.Join(shared, "node_modules", "typescript", "lib")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(shared, "node_modules", "typescript", "package.json"), []byte(`{"name":"typescript","version":"5.9.9"}`), 0o644)
	os.WriteFile(filepath.Join(lib, "tsserver.js"), []byte("require('fs').writeFileSync("+jsString(marker)+", 'ran')\n"), 0o644)
	if os.Geteuid() == 0 {
		filepath.WalkDir(filepath.Join(shared, "node_modules"), func(p string, _ fs.DirEntry, _ error) error {
			return os.Chown(p, 65534, 65534)
		})
	} else {
		t.Log("not root: the attacker's files are ours; the 1777 parent alone is refused")
	}

	s := hv.serve(t, env, "--auto", "accept")
	getDiagnosticsRaw(t, s, src)
	if marked(marker) {
		t.Fatal("another user's tsserver.js ran as this one")
	}
	for range 2 {
		noDiagnostics(t, s, src)
	}
	s.waitFor(t, reText("language servers (getDiagnostics): off while other users can write "+shared+" (if you accept that: claude-ide-bridge trust --shared "+victim+")"))
	why := shared + " can be written by other users (mode 1777: sticky, but any user can create new files and folders in it)"
	if n := strings.Count(s.errOut.String(), why); n != 1 {
		t.Errorf("%d log lines name %s, want 1:\n%s", n, shared, s.errOut.String())
	}

	// Trusting the workspace again does not accept the shared parent: refused, with the reason.
	_, stderr, code := hv.command(t, victim, "trust", victim)
	for _, want := range []string{"not trusted: " + victim, why, "would run as you", "If you accept that: claude-ide-bridge trust --shared " + victim} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("trust: status %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	if out, _, code := hv.command(t, victim, "trust", "--check", victim); code != 1 || !strings.Contains(out, why) {
		t.Errorf("--check: %d %q", code, out)
	}
	getDiagnosticsRaw(t, s, src)
	if marked(marker) {
		t.Fatal("another user's tsserver.js ran after a plain trust")
	}

	// The explicit acceptance of that case.
	out, _, code := hv.command(t, victim, "trust", "--shared", victim)
	if code != 0 || !strings.Contains(out, "Accepted") || !strings.Contains(out, why) {
		t.Fatalf("trust --shared: %d %q", code, out)
	}
	if out, _, _ := hv.command(t, victim, "trust", "--list"); !strings.Contains(out, "accepting what other users put in "+shared+"\n") {
		t.Errorf("--list: %q", out)
	}
	getDiagnosticsRaw(t, s, src)
	if !marked(marker) {
		t.Error("accepted, typescript-language-server did not start")
	}
}

// TestTrustRecreatedFolder (issue 35 item 4): a trusted folder deleted and made again is not
// trusted: `trust --check` says so and why, serve starts no server; trusting again trusts it.
func TestTrustRecreatedFolder(t *testing.T) {
	h := newHome(t)
	ws := filepath.Join(h.dir, "proj")
	os.Mkdir(ws, 0o755)
	h.ws = ws
	h.trust(t, ws)
	os.Rename(ws, ws+".old") // kept, so the new folder cannot reuse its inode
	os.Mkdir(ws, 0o755)
	if os.Geteuid() == 0 {
		os.Chown(ws, 65534, 65534) // made again by another user
	}
	out, _, code := h.command(t, h.dir, "trust", "--check", ws)
	if code != 1 || !strings.Contains(out, "not trusted: "+ws) || !strings.Contains(out, "deleted and made again") {
		t.Errorf("--check: %d %q", code, out)
	}
	src := filepath.Join(ws, "main.go")
	os.WriteFile(src, []byte("package main\n"), 0o644)
	bin := filepath.Join(t.TempDir(), "bin")
	marker := filepath.Join(h.dir, "ran-gopls")
	writeScript(t, filepath.Join(bin, "gopls"), "echo > "+marker)
	s := h.serve(t, []string{"PATH=" + bin + ":/usr/bin:/bin"}, "--auto", "accept")
	noDiagnostics(t, s, src)
	if marked(marker) {
		t.Fatal("gopls started in a folder made again")
	}
	if os.Geteuid() == 0 {
		os.Chown(ws, 0, 0)
	}
	h.trust(t, ws)
	getDiagnosticsRaw(t, s, src)
	if !marked(marker) {
		t.Error("trusted again, gopls did not start")
	}
}
