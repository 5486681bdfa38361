// Package procstat reads a process's memory and CPU time from Linux's /proc, for the
// benchmarks (elsewhere every call is an error).
package procstat

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux the Go
// runtime supports.
const clockTicks = 100

// RSSKiB is VmRSS of pid, from /proc/<pid>/status.
func RSSKiB(pid int) (int, error) {
	m, err := ReadMemory(pid)
	return m.RSS, err
}

// Memory is a process's resident memory by kind, in KiB (/proc/<pid>/status).
type Memory struct {
	RSS   int // VmRSS: all of it
	Anon  int // RssAnon: heap, stacks: nothing to read it back from
	File  int // RssFile: pages of mapped files (program text): clean, dropped and read again
	Shmem int // RssShmem: shared memory, held like Anon
}

// Private is the memory the kernel cannot drop: RssAnon + RssShmem.
func (m Memory) Private() int { return m.Anon + m.Shmem }

// Add sums two processes' memory.
func (m Memory) Add(o Memory) Memory {
	return Memory{m.RSS + o.RSS, m.Anon + o.Anon, m.File + o.File, m.Shmem + o.Shmem}
}

// ReadMemory reads pid's Memory.
func ReadMemory(pid int) (Memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	fields := map[string]*int{"VmRSS:": &m.RSS, "RssAnon:": &m.Anon, "RssFile:": &m.File, "RssShmem:": &m.Shmem}
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		name, v, ok := strings.Cut(line, "\t")
		if p := fields[name]; ok && p != nil {
			if *p, err = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB")); err != nil {
				return Memory{}, fmt.Errorf("pid %d: %s %q", pid, name, v)
			}
			found++
		}
	}
	if found != len(fields) {
		return Memory{}, fmt.Errorf("pid %d: /proc status without VmRSS/RssAnon/RssFile/RssShmem", pid)
	}
	return m, nil
}

// stat is the fields of /proc/<pid>/stat after the command name: f[0] is field 3 (state).
func stat(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the name may hold spaces and parentheses
	if i < 0 {
		return nil, fmt.Errorf("bad stat for pid %d", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// CPUSeconds is utime+stime of pid (all its threads).
func CPUSeconds(pid int) (float64, error) {
	f, err := stat(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 13 { // utime is field 14, stime field 15
		return 0, fmt.Errorf("short stat for pid %d", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad stat times for pid %d", pid)
	}
	return float64(u+s) / clockTicks, nil
}

// Children are the pids whose parent is pid.
func Children(pid int) []int {
	var out []int
	names, _ := filepath.Glob("/proc/[0-9]*")
	for _, n := range names {
		p, err := strconv.Atoi(filepath.Base(n))
		if err != nil {
			continue
		}
		if f, err := stat(p); err == nil && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}
