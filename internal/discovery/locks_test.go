package discovery

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listening returns a loopback listener closed at the end of the test.
func listening(t *testing.T) int {
	t.Helper()
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return tcpPort(t, ln)
}

// closedPorts returns n distinct ports that nothing listens on (they were free a moment ago).
func closedPorts(t *testing.T, n int) []int {
	t.Helper()
	var ps []int
	for len(ps) < n {
		if p := freePort(t); !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

type lockCase struct {
	name     string
	dir      string
	file     string // base name
	content  any    // Lock, or string for raw bytes
	answer   bool   // want PortAnswering
	alive    bool   // want PIDAlive
	ours     bool
	parseErr bool
	stale    bool
}

// Facts: "The CLI deletes lock files at start-up: unreadable ones, ones whose pid is dead,
// ones without pid whose port refuses TCP." Brief: a live pid that answers is never stale;
// another IDE's lock with a live pid is never stale even if its port is closed.
func lockCases(t *testing.T, a, b string) []lockCase {
	me := os.Getpid()
	closed := closedPorts(t, 5)
	name := func(p int) string { return strconv.Itoa(p) + ".lock" }
	live1, live2, live3 := listening(t), listening(t), listening(t)
	live4, live5, live6, live7 := listening(t), listening(t), listening(t), listening(t)
	return []lockCase{
		{name: "ours live answering", dir: a, file: name(live1),
			content: Lock{PID: me, IDEName: "Neovim", AuthToken: testToken, Bridge: BridgeMarker},
			answer:  true, alive: true, ours: true},
		// Issue 15 item 6: never a lock whose port answers, whatever it holds (a pid of another
		// pid namespace: a container, WSL, looks dead here).
		{name: "foreign dead pid answering", dir: a, file: name(live2),
			content: Lock{PID: deadPID(t), IDEName: "VS Code", AuthToken: testToken},
			answer:  true},
		{name: "not JSON answering", dir: a, file: name(live4), content: "not json at all",
			answer: true, parseErr: true},
		{name: "BOM answering", dir: a, file: name(live5), content: "\ufeff{\"pid\":1,\"authToken\":\"x\"}",
			answer: true, parseErr: true},
		{name: "string pid answering", dir: a, file: name(live6), content: `{"pid":"123","authToken":"x"}`,
			answer: true, parseErr: true},
		{name: "ours dead pid answering", dir: b, file: name(live7),
			content: Lock{PID: deadPID(t), AuthToken: testToken, Bridge: BridgeMarker},
			answer:  true, ours: true},
		{name: "ours closed port", dir: a, file: name(closed[0]),
			content: Lock{PID: me, IDEName: "Nova", AuthToken: testToken, Bridge: BridgeMarker},
			alive:   true, ours: true, stale: true},
		{name: "foreign live closed port", dir: a, file: name(closed[1]),
			content: Lock{PID: me, IDEName: "IntelliJ", AuthToken: testToken},
			alive:   true},
		{name: "garbage", dir: a, file: name(closed[2]), content: "{not json",
			parseErr: true, stale: true},
		// Only ^[0-9]+\.lock$ is ever removed: Cargo.lock and the like are left.
		{name: "not a port name", dir: a, file: "notaport.lock",
			content:  Lock{PID: me, AuthToken: testToken},
			parseErr: true},
		{name: "Cargo.lock", dir: a, file: "Cargo.lock", content: "[[package]]\nname = \"x\"\n",
			parseErr: true},
		{name: "no pid closed port", dir: b, file: name(closed[3]),
			content: map[string]any{"ideName": "Old", "transport": "ws", "authToken": testToken},
			stale:   true},
		{name: "no pid answering", dir: b, file: name(live3),
			content: map[string]any{"ideName": "Old", "transport": "ws", "authToken": testToken},
			answer:  true},
		{name: "ours dead pid closed", dir: b, file: name(closed[4]),
			content: Lock{PID: deadPID(t), AuthToken: testToken, Bridge: BridgeMarker},
			ours:    true, stale: true},
	}
}

// writtenCases writes lockCases into the folders a and b of a new temporary folder tmp.
func writtenCases(t *testing.T) (tmp, a, b string, cases []lockCase) {
	t.Helper()
	tmp = t.TempDir()
	a, b = filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	cases = lockCases(t, a, b)
	writeCases(t, cases)
	return tmp, a, b, cases
}

// writeCases writes every case's file, each one second newer than the one before.
func writeCases(t *testing.T, cases []lockCase) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, c := range cases {
		path := filepath.Join(c.dir, c.file)
		var data []byte
		if s, ok := c.content.(string); ok {
			data = []byte(s)
		} else {
			data = mustJSON(t, c.content)
		}
		if err := os.MkdirAll(c.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func TestListLocks(t *testing.T) {
	t.Parallel()
	tmp, a, b, cases := writtenCases(t)
	// Not lock files: never listed, never cleaned.
	if err := os.WriteFile(filepath.Join(a, "12345.lock.tmp"), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	got, err := ListLocks([]string{a, filepath.Join(tmp, "missing"), b, a})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cases) {
		t.Fatalf("listed %d locks, want %d", len(got), len(cases))
	}
	// Facts: "Only names ending in .lock; newest mtime first."
	for i, li := range got {
		c := cases[len(cases)-1-i]
		if li.Path != filepath.Join(c.dir, c.file) {
			t.Fatalf("lock %d is %s, want %s (newest first)", i, li.Path, filepath.Join(c.dir, c.file))
		}
		if li.PortAnswering != c.answer || li.PIDAlive != c.alive || li.Ours != c.ours ||
			(li.ParseErr != nil) != c.parseErr || li.Stale() != c.stale {
			t.Errorf("%s: answering=%v alive=%v ours=%v parseErr=%v stale=%v; want %v %v %v %v %v",
				c.name, li.PortAnswering, li.PIDAlive, li.Ours, li.ParseErr, li.Stale(),
				c.answer, c.alive, c.ours, c.parseErr, c.stale)
		}
		if wantPort, err := strconv.Atoi(strings.TrimSuffix(c.file, ".lock")); err == nil && li.Port != wantPort {
			t.Errorf("%s: port %d, want %d", c.name, li.Port, wantPort)
		}
	}
}

func TestCleanLocks(t *testing.T) {
	t.Parallel()
	_, a, b, cases := writtenCases(t)

	removed, err := CleanLocks([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		path := filepath.Join(c.dir, c.file)
		_, statErr := os.Stat(path)
		if gone := statErr != nil; gone != c.stale || slices.Contains(removed, path) != c.stale {
			t.Errorf("%s: removed=%v (reported %v), want %v", c.name, gone, slices.Contains(removed, path), c.stale)
		}
	}
	if again, err := CleanLocks([]string{a, b}); err != nil || len(again) != 0 {
		t.Errorf("second clean removed %q, %v", again, err)
	}
}

func TestFormatLocks(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	FormatLocks(&buf, nil)
	if buf.String() != "no lock files\n" {
		t.Errorf("empty table = %q", buf.String())
	}

	dir := t.TempDir()
	port := listening(t)
	if _, err := WriteLock(dir, port, Lock{PID: os.Getpid(), IDEName: "Neovim",
		WorkspaceFolders: []string{"/w/a", "/w/b"}, AuthToken: testToken, Bridge: BridgeMarker}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "7.lock"), []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	locks, err := ListLocks([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	FormatLocks(&buf, locks)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "PORT") {
		t.Fatalf("table:\n%s", buf.String())
	}
	row := strings.Join(strings.Fields(findLine(lines, strconv.Itoa(port))), " ")
	want := strconv.Itoa(port) + " Neovim " + strconv.Itoa(os.Getpid()) + " (alive) yes yes no /w/a,/w/b " +
		filepath.Join(dir, strconv.Itoa(port)+".lock")
	if row != want {
		t.Errorf("row = %q\nwant %q", row, want)
	}
	if bad := findLine(lines, "7"); !strings.Contains(bad, "unreadable") {
		t.Errorf("garbage row = %q, want it marked unreadable", bad)
	}
}

// findLine returns the table row whose first column is first.
func findLine(lines []string, first string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, first+" ") {
			return l
		}
	}
	return ""
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
