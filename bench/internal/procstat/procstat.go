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
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
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
