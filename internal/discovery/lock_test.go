package discovery

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Facts: "Lock files: $CLAUDE_CONFIG_DIR/ide/*.lock, else ~/.claude/ide/*.lock; with
// CLAUDE_CONFIG_DIR set, ~/.claude/ide is scanned too."
func TestDir(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	userHome := func() (string, error) { return home, nil }

	if d, err := dirFor("", userHome); err != nil || d != filepath.Join(home, ".claude", "ide") {
		t.Errorf("unset: Dir() = %q, %v", d, err)
	}
	if d := dirsFor("", userHome); !slices.Equal(d, []string{filepath.Join(home, ".claude", "ide")}) {
		t.Errorf("unset: Dirs() = %q", d)
	}

	cfg := t.TempDir()
	if d, err := dirFor(cfg, userHome); err != nil || d != filepath.Join(cfg, "ide") {
		t.Errorf("set: Dir() = %q, %v", d, err)
	}
	want := []string{filepath.Join(cfg, "ide"), filepath.Join(home, ".claude", "ide")}
	if d := dirsFor(cfg, userHome); !slices.Equal(d, want) {
		t.Errorf("set: Dirs() = %q, want %q", d, want)
	}

	// CLAUDE_CONFIG_DIR pointing at ~/.claude gives one dir, not two.
	if d := dirsFor(filepath.Join(home, ".claude")+"/", userHome); !slices.Equal(d, []string{filepath.Join(home, ".claude", "ide")}) {
		t.Errorf("same dir: Dirs() = %q", d)
	}

	// No home and no CLAUDE_CONFIG_DIR: an error, and no dir at all.
	noHome := func() (string, error) { return "", errors.New("$HOME is not defined") }
	if d, err := dirFor("", noHome); err == nil {
		t.Errorf("no home: Dir() = %q, want an error", d)
	}
	if d := dirsFor("", noHome); len(d) != 0 {
		t.Errorf("no home: Dirs() = %q", d)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

const testToken = "a3f1c2d4e5f60718293a4b5c6d7e8f90"

// Facts: "JSON fields read: workspaceFolders, pid, ideName, transport (only "ws" means
// WebSocket ...), authToken, runningInWindows."
func TestWriteLockFields(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ide")
	path, err := WriteLock(dir, 43117, Lock{
		PID:              4242,
		WorkspaceFolders: []string{"/a", "/b c"},
		IDEName:          "Neovim",
		Transport:        "sse", // ignored: we only serve WebSocket
		AuthToken:        testToken,
		Bridge:           BridgeMarker,
	})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "43117.lock") {
		t.Errorf("path = %q", path)
	}
	want := map[string]any{
		"pid":              4242.0,
		"workspaceFolders": []any{"/a", "/b c"},
		"ideName":          "Neovim",
		"transport":        "ws",
		"authToken":        testToken,
		"bridge":           "claude-ide-bridge",
	}
	if got := readJSON(t, path); !reflect.DeepEqual(got, want) {
		t.Errorf("lock JSON = %v\nwant %v", got, want)
	}

	// Defaults: pid of this process, folders as [] (not null), runningInWindows only when true.
	path, err = WriteLock(dir, 43118, Lock{IDEName: "Nova", AuthToken: testToken, RunningInWindows: true})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]any{
		"pid":              float64(os.Getpid()),
		"workspaceFolders": []any{},
		"ideName":          "Nova",
		"transport":        "ws",
		"authToken":        testToken,
		"runningInWindows": true,
	}
	if got := readJSON(t, path); !reflect.DeepEqual(got, want) {
		t.Errorf("lock JSON = %v\nwant %v", got, want)
	}
}

func TestWriteLockRejects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		port int
		l    Lock
	}{
		{0, Lock{AuthToken: testToken}},
		{65536, Lock{AuthToken: testToken}},
		{43117, Lock{}}, // no token: the server could never authenticate anyone
	} {
		if _, err := WriteLock(dir, tc.port, tc.l); err == nil {
			t.Errorf("WriteLock(%d, %+v) succeeded", tc.port, tc.l)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("rejected writes left files: %v", ents)
	}
}

func TestWriteLockModes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "claude", "ide")
	path, err := WriteLock(dir, 43117, Lock{AuthToken: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("lock mode = %v, want -rw-------", m)
	}
	if m := mode(t, dir); m != os.ModeDir|0o700 {
		t.Errorf("dir mode = %v, want drwx------", m)
	}
	assertNoTemp(t, dir)

	// Rewriting (workspaceFoldersChanged) replaces the content in place.
	if _, err := WriteLock(dir, 43117, Lock{AuthToken: testToken, IDEName: "again"}); err != nil {
		t.Fatal(err)
	}
	if got := readJSON(t, path)["ideName"]; got != "again" {
		t.Errorf("rewritten ideName = %v", got)
	}
	assertNoTemp(t, dir)
}

// assertNoTemp fails if dir holds anything but *.lock files.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestWriteLockRepairsDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ide")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // defeat umask
		t.Fatal(err)
	}
	if _, err := WriteLock(dir, 43117, Lock{AuthToken: testToken}); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dir); m != os.ModeDir|0o700 {
		t.Errorf("dir mode = %v, want drwx------", m)
	}
}

func TestWriteLockRefusesSymlinkDir(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	real := filepath.Join(tmp, "elsewhere")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "ide")
	if err := os.Symlink(real, dir); err != nil {
		t.Fatal(err)
	}
	_, err := WriteLock(dir, 43117, Lock{AuthToken: testToken})
	if !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("WriteLock into symlinked dir: err = %v, want ErrUnsafeDir", err)
	}
	if ents, _ := os.ReadDir(real); len(ents) != 0 {
		t.Errorf("wrote through the symlink: %v", ents)
	}
}

func TestWriteLockRefusesForeignOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the dir to another uid")
	}
	dir := filepath.Join(t.TempDir(), "ide")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteLock(dir, 43117, Lock{AuthToken: testToken}); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("WriteLock into another user's dir: err = %v, want ErrUnsafeDir", err)
	}
}

func TestWriteLockReplacesSymlinkTarget(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	victim := filepath.Join(tmp, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "ide")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "43117.lock")); err != nil {
		t.Fatal(err)
	}
	path, err := WriteLock(dir, 43117, Lock{AuthToken: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious" {
		t.Errorf("symlink target changed to %q", data)
	}
	if m := mode(t, path); !m.IsRegular() || m.Perm() != 0o600 {
		t.Errorf("lock mode = %v, want a regular 0600 file", m)
	}
	if readJSON(t, path)["authToken"] != testToken {
		t.Error("lock content not written")
	}
}

func TestWriteLockRefusesDirTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "43117.lock"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteLock(dir, 43117, Lock{AuthToken: testToken}); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("err = %v, want ErrUnsafeDir", err)
	}
	assertNoTemp(t, dir)
}

func TestRemoveLock(t *testing.T) {
	t.Parallel()
	path, err := WriteLock(t.TempDir(), 43117, Lock{AuthToken: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveLock(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock still there: %v", err)
	}
	if err := RemoveLock(path); err != nil {
		t.Errorf("removing a missing lock: %v", err)
	}
}

// Facts: "The cwd is symlink-resolved; folders are not: write real, absolute,
// symlink-resolved paths."
func TestResolveFolders(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(tmp, "project")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(tmp)

	// "" is the current directory (Resolve, which `env` and the attach socket's lookup rely on).
	got, err := ResolveFolders([]string{link, "project", link + "/", ""})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{real, real, real, tmp}; !slices.Equal(got, want) {
		t.Errorf("ResolveFolders = %q, want %q", got, want)
	}

	missing := filepath.Join(tmp, "missing")
	if _, err := ResolveFolders([]string{real, missing}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing folder: err = %v, want one naming %s", err, missing)
	}
}
