package nvimtest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc names one process: its pid and its start time (so a reused pid is not taken for it).
type proc struct {
	pid   int
	start string
	comm  string
}

// procStat reads /proc/PID/stat: comm, state, ppid and start time; ok false when pid is gone.
func procStat(pid int) (comm, state string, ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", 0, "", false
	}
	// pid (comm) state ppid pgrp ... starttime is field 22; comm may hold spaces and ')'.
	s := string(b)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return "", "", 0, "", false
	}
	f := strings.Fields(s[j+1:])
	if len(f) < 20 {
		return "", "", 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return s[i+1 : j], f[0], ppid, f[19], true
}

// descendants lists the processes below pid (children, their children, ...), as they are now.
func descendants(pid int) []proc {
	if pid <= 1 { // not a process of the test's: everything descends from init
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]proc{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, _, ppid, start, ok := procStat(p); ok {
			kids[ppid] = append(kids[ppid], proc{p, start, comm})
		}
	}
	var out []proc
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, k := range kids[queue[0]] {
			out = append(out, k)
			queue = append(queue, k.pid)
		}
	}
	return out
}

// alive reports whether p still runs (a zombie does not: it holds no files and writes nothing).
func (p proc) alive() bool {
	_, state, _, start, ok := procStat(p.pid)
	return ok && start == p.start && state != "Z" && state != "X"
}

// waitGone waits (bounded) until every process of ps has ended, then kills those left and says
// so. Neovim's language servers (vim.lsp) end a moment after Neovim: gopls wrote its cache into
// the test's HOME while t.TempDir removed it (leftover /tmp/Test* folders; "directory not
// empty" when the two met).
func waitGone(t *testing.T, ps []proc) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []proc
		for _, p := range ps {
			if p.alive() {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var names []string
			for _, p := range left {
				names = append(names, strconv.Itoa(p.pid)+" "+p.comm)
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
			t.Logf("still running 10 s after Neovim exited, killed: %s", strings.Join(names, ", "))
			ps, deadline = left, time.Now().Add(10*time.Second)
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
}
