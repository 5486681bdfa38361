package procstat

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

var spin int

// A real child is found under its parent, and its CPU time and RSS read; a pid that is gone is
// an error, never a zero.
func TestChildCPUAndRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !slices.Contains(Children(os.Getpid()), pid) {
		t.Errorf("Children(%d) lacks its child %d", os.Getpid(), pid)
	}
	// Busy for a while, this process's CPU time grows past one tick.
	s0, err := CPUSeconds(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); ; {
		s, err := CPUSeconds(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if s > s0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("CPUSeconds(self) stayed %v over 5 s of spinning", s)
		}
		for i := 0; i < 1e6; i++ {
			spin += i
		}
	}
	if k, err := RSSKiB(pid); err != nil || k <= 0 {
		t.Errorf("RSSKiB(child) = %v, %v", k, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for slices.Contains(Children(os.Getpid()), pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := RSSKiB(pid); err == nil {
		t.Errorf("RSSKiB of a reaped pid %d: no error", pid)
	}
	if _, err := CPUSeconds(pid); err == nil {
		t.Errorf("CPUSeconds of a reaped pid %d: no error", pid)
	}
}

// Memory by kind: a heap this process holds shows in RssAnon, and the kinds add up to VmRSS.
func TestReadMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	m0, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	held := make([]byte, 32<<20)
	for i := range held {
		held[i] = 1
	}
	m1, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m1.Anon-m0.Anon < 30<<10 || m1.Private() < m1.Anon {
		t.Errorf("32 MiB touched: RssAnon %d -> %d KiB", m0.Anon, m1.Anon)
	}
	if m1.Anon+m1.File+m1.Shmem != m1.RSS {
		t.Errorf("%+v: the kinds do not add up to VmRSS", m1)
	}
	spin = int(held[len(held)-1])
	if _, err := ReadMemory(1 << 30); err == nil {
		t.Error("a pid that does not exist gave no error")
	}
}
