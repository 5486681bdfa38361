//go:build linux

package discovery

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const nobody = 65534

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another local user (CI runs as root)")
	}
}

// listenAs opens a loopback listener whose socket belongs to uid, as another local user's would:
// the socket's owner is the creating thread's fsuid.
func listenAs(t *testing.T, uid int) int {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(uid), 0, 0); e != 0 {
		t.Fatal(e)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	syscall.RawSyscall(syscall.SYS_SETFSUID, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// Issue 15 item 3: a crashed stdio bridge's lock holds the (live) editor's pid; another local user
// binds the freed port. `locks`, `--clean` and the start-up sweep kept the lock, and a client
// following it handed the token to the impostor. Now a listener of another uid (read from
// /proc/net/tcp, no token sent) makes the lock stale.
func TestPortTakenByAnotherUser(t *testing.T) {
	t.Parallel()
	needRoot(t)
	dir := t.TempDir()
	port := listenAs(t, nobody)
	if uid, ok := listenerUID(port); !ok || uid != nobody {
		t.Fatalf("listenerUID(%d) = %d, %v; want %d", port, uid, ok, nobody)
	}
	path := filepath.Join(dir, strconv.Itoa(port)+".lock")
	os.WriteFile(path, mustJSON(t, Lock{PID: os.Getpid(), AuthToken: testToken, Bridge: BridgeMarker}), 0o600)
	own := listening(t)
	ownPath := filepath.Join(dir, strconv.Itoa(own)+".lock")
	os.WriteFile(ownPath, mustJSON(t, Lock{PID: os.Getpid(), AuthToken: testToken, Bridge: BridgeMarker}), 0o600)
	if uid, ok := listenerUID(own); !ok || uid != os.Geteuid() {
		t.Fatalf("listenerUID(own %d) = %d, %v", own, uid, ok)
	}
	removed, err := SweepOwn([]string{dir})
	if err != nil || !slices.Equal(removed, []string{path}) {
		t.Fatalf("SweepOwn = %v, %v; want only the lock whose port another user holds", removed, err)
	}
	if _, err := os.Stat(ownPath); err != nil {
		t.Fatal("our live lock was removed")
	}
}

// Issue 15 item 6: with `ide` a symlink to a project, `locks --clean` deleted Cargo.lock,
// poetry.lock, Gemfile.lock. Nothing in a symlinked dir, nothing not named <digits>.lock,
// nothing that is not a regular file is removed; each is reported.
func TestCleanLeavesForeignFiles(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	os.Mkdir(project, 0o700)
	closed := closedPorts(t, 2)
	files := []string{"Cargo.lock", "poetry.lock", "Gemfile.lock", strconv.Itoa(closed[0]) + ".lock"}
	for _, f := range files {
		os.WriteFile(filepath.Join(project, f), []byte("not a lock"), 0o600)
	}
	link := filepath.Join(tmp, "ide")
	os.Symlink(project, link)
	real := filepath.Join(tmp, "real")
	os.Mkdir(real, 0o700)
	target := filepath.Join(tmp, "precious")
	os.WriteFile(target, []byte("keep"), 0o600)
	os.Symlink(target, filepath.Join(real, strconv.Itoa(closed[1])+".lock"))
	os.WriteFile(filepath.Join(real, "Cargo.lock"), []byte("x"), 0o600)

	removed, _ := CleanLocks([]string{link, real})
	if len(removed) != 0 {
		t.Fatalf("removed %v", removed)
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(project, f)); err != nil {
			t.Errorf("%s was deleted", f)
		}
	}
	if _, err := os.Lstat(filepath.Join(real, strconv.Itoa(closed[1])+".lock")); err != nil {
		t.Error("a symlinked lock was deleted")
	}
	locks, _ := ListLocks([]string{link, real})
	for _, li := range locks {
		if li.Foreign == "" || li.Stale() {
			t.Errorf("%s: foreign %q stale %v; want reported and left", li.Path, li.Foreign, li.Stale())
		}
	}
	t.Logf("%d foreign files left alone", len(locks))
}

// Issue 15 item 7: tightening a 0777 lock dir kept files planted by another user, and `env` then
// printed the planted port. Now they are removed; the user's own files stay; a planted directory
// makes the dir refused.
func TestTightenRemovesPlanted(t *testing.T) {
	t.Parallel()
	needRoot(t)
	dir := filepath.Join(t.TempDir(), "ide")
	os.Mkdir(dir, 0o777)
	os.Chmod(dir, 0o777)
	planted := filepath.Join(dir, "4242.lock")
	os.WriteFile(planted, []byte(`{"pid":1,"authToken":"evil","ideName":"x"}`), 0o644)
	os.Chown(planted, nobody, nobody)
	plantedLink := filepath.Join(dir, "4243.lock")
	os.Symlink("/etc/passwd", plantedLink)
	os.Lchown(plantedLink, nobody, nobody)
	mine := filepath.Join(dir, "notes")
	os.WriteFile(mine, []byte("mine"), 0o600)

	path, err := WriteLock(dir, listening(t), Lock{PID: os.Getpid(), AuthToken: testToken, Bridge: BridgeMarker})
	if err != nil {
		t.Fatal(err)
	}
	defer RemoveLock(path)
	for _, p := range []string{planted, plantedLink} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("planted %s kept", p)
		}
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("the user's own file was removed")
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", fi.Mode().Perm())
	}

	dir2 := filepath.Join(t.TempDir(), "ide")
	os.Mkdir(dir2, 0o777)
	os.Chmod(dir2, 0o777)
	sub := filepath.Join(dir2, "sub")
	os.Mkdir(sub, 0o755)
	os.Chown(sub, nobody, nobody)
	if _, err := WriteLock(dir2, listening(t), Lock{PID: os.Getpid(), AuthToken: testToken}); err == nil {
		t.Fatal("a lock dir holding a planted directory was used")
	}
}

// Issue 25 item 3: DialOwn closes the gap between Live and the send. A connection accepted by
// another user's socket is closed before a byte is written; our own listener's is handed back.
func TestDialOwnRefusesAnotherUsersSocket(t *testing.T) {
	t.Parallel()
	needRoot(t)
	ctx := context.Background()
	if c, err := DialOwn(ctx, listenAs(t, nobody)); !errors.Is(err, ErrPortForeign) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("DialOwn to nobody's listener: %v, want ErrPortForeign", err)
	}
	c, err := DialOwn(ctx, listening(t))
	if err != nil {
		t.Fatalf("DialOwn to our listener: %v", err)
	}
	c.Close()
}

// Live is the check of every command that sends a token; each way a lock is not live is named.
func TestLive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	own := listening(t)
	closed := closedPorts(t, 1)[0]
	write := func(port, pid int) string {
		p := filepath.Join(dir, strconv.Itoa(port)+".lock")
		os.WriteFile(p, mustJSON(t, Lock{PID: pid, AuthToken: testToken, Bridge: BridgeMarker}), 0o600)
		return p
	}
	if err := InspectLock(write(own, os.Getpid())).Live(); err != nil {
		t.Errorf("our live lock: %v", err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{write(closed, os.Getpid()), "nothing answers"},
		{write(own+0, 0), "pid 0 is not alive"},
	} {
		if err := InspectLock(c.path).Live(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Live() = %v, want %q", c.path, err, c.want)
		}
	}
	if os.Geteuid() == 0 {
		if err := InspectLock(write(listenAs(t, nobody), os.Getpid())).Live(); err == nil || !strings.Contains(err.Error(), "held by another user") {
			t.Errorf("nobody's port: Live() = %v", err)
		}
	}
}
