//go:build unix

package attach_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
)

// dir is a fresh 0700 directory of this user, as the lock directory is.
func dir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSocketIsTheUsersAlone(t *testing.T) {
	t.Parallel()
	d := dir(t)
	path := attach.SocketPath(d, "/home/me/project")
	if filepath.Dir(path) != d || !strings.HasSuffix(path, ".sock") || path == attach.SocketPath(d, "/home/me/other") {
		t.Fatalf("SocketPath = %s", path)
	}
	ln, err := attach.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a 0600 socket", fi.Mode())
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept(nil)
		if err == nil {
			accepted <- c
		}
	}()
	c, err := attach.Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case s := <-accepted:
		s.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the connection of this user was not accepted")
	}
}

// A directory open to others, a file that is not a socket, a symlink: never used.
func TestUnsafePlacesRefused(t *testing.T) {
	t.Parallel()
	open := t.TempDir()
	os.Chmod(open, 0o755)
	if _, err := attach.Listen(filepath.Join(open, "a.sock")); !errors.Is(err, attach.ErrUnsafe) {
		t.Errorf("Listen in a 0755 directory: %v, want ErrUnsafe", err)
	}
	if _, err := attach.Dial(context.Background(), filepath.Join(open, "a.sock")); !errors.Is(err, attach.ErrUnsafe) {
		t.Errorf("Dial in a 0755 directory: %v, want ErrUnsafe", err)
	}
	d := dir(t)
	plain := filepath.Join(d, "plain.sock")
	os.WriteFile(plain, nil, 0o600)
	if _, err := attach.Dial(context.Background(), plain); !errors.Is(err, attach.ErrUnsafe) {
		t.Errorf("Dial of a regular file: %v, want ErrUnsafe", err)
	}
	real := filepath.Join(d, "real.sock")
	ln, err := attach.Listen(real)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	link := filepath.Join(d, "link.sock")
	os.Symlink(real, link)
	if _, err := attach.Dial(context.Background(), link); !errors.Is(err, attach.ErrUnsafe) {
		t.Errorf("Dial of a symlink: %v, want ErrUnsafe", err)
	}
	if _, err := attach.Listen(plain); err == nil {
		t.Error("Listen replaced a regular file")
	}
}

// A socket left by a bridge that died is replaced; one a live bridge listens on is ErrBusy.
func TestStaleAndBusy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(dir(t), "w.sock")
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	ln, err := attach.Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer ln.Close()
	if _, err := attach.Listen(path); !errors.Is(err, attach.ErrBusy) {
		t.Errorf("Listen where a live bridge listens: %v, want ErrBusy", err)
	}
}

// The child half of TestOtherUserRefused: dials the path it is given as the user it runs as,
// writes, and reports what came back.
func TestMain(m *testing.M) {
	if path := os.Getenv("ATTACH_TEST_DIAL"); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			if errors.Is(err, syscall.EACCES) {
				os.Stdout.WriteString("EACCES\n")
				os.Exit(0)
			}
			os.Stdout.WriteString("dial: " + err.Error() + "\n")
			os.Exit(0)
		}
		c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"name":"x"}}` + "\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(c)
		os.Stdout.WriteString("read " + string(b) + " " + errString(err) + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func errString(err error) string {
	if err == nil {
		return "EOF"
	}
	return err.Error()
}

// Another user cannot attach: the 0700 directory stops them at connect (EACCES), and a path
// into the socket that bypasses the directory (a hard link in an open one) is refused on the
// peer's uid before a byte is read. Needs root, to run the child as nobody.
func TestOtherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs root (CI runs as root)")
		}
		t.Skip("needs root to run a child as another user")
	}
	// The test binary and an open directory the other user can reach.
	pub, err := os.MkdirTemp("/tmp", "attach-other-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(pub)
	os.Chmod(pub, 0o777)
	exe, _ := os.Executable()
	child := filepath.Join(pub, "attach.test")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(child, data, 0o755); err != nil {
		t.Fatal(err)
	}

	d, err := os.MkdirTemp("/tmp", "attach-own-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	path := filepath.Join(d, "w.sock")
	ln, err := attach.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	refused := make(chan int, 4)
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept(func(uid int, err error) { refused <- uid })
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	asNobody := func(target string) string {
		cmd := exec.Command(child, "-test.run=^$")
		cmd.Env = append(os.Environ(), "ATTACH_TEST_DIAL="+target)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := asNobody(path); got != "EACCES" {
		t.Errorf("nobody dialing through the 0700 directory: %q, want EACCES", got)
	}
	link := filepath.Join(pub, "w.sock")
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o666) // the link shares the inode: let connect itself through
	got := asNobody(link)
	if got != "read  EOF" && !strings.Contains(got, "reset") {
		t.Errorf("nobody through a link: %q, want the connection closed unread", got)
	}
	select {
	case uid := <-refused:
		if uid != 65534 {
			t.Errorf("refused uid %d, want 65534", uid)
		}
	case c := <-accepted:
		c.Close()
		t.Fatal("another user's connection was accepted")
	case <-time.After(10 * time.Second):
		t.Fatal("the other user's connection was neither refused nor accepted")
	}
}

// RemoveStale removes a socket nothing listens on, and nothing else (issue 39 item 10: a killed
// bridge left its ws-*.sock behind).
func TestRemoveStale(t *testing.T) {
	t.Parallel()
	d := dir(t)
	dead := filepath.Join(d, "dead.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: dead, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if removed, err := attach.RemoveStale(dead); !removed || err != nil {
		t.Errorf("a dead socket: removed %v, %v", removed, err)
	}
	if _, err := os.Lstat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead socket is still there: %v", err)
	}
	live, err := attach.Listen(filepath.Join(d, "live.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if removed, err := attach.RemoveStale(live.Path()); removed || !errors.Is(err, attach.ErrBusy) {
		t.Errorf("a live socket: removed %v, %v; want ErrBusy", removed, err)
	}
	file := filepath.Join(d, "file.sock")
	os.WriteFile(file, nil, 0o600)
	if removed, err := attach.RemoveStale(file); removed || !errors.Is(err, attach.ErrUnsafe) {
		t.Errorf("a regular file: removed %v, %v; want ErrUnsafe", removed, err)
	}
	for _, p := range []string{live.Path(), file} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
