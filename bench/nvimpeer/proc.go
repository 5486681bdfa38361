package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// rssKiB is VmRSS of pid, from /proc/<pid>/status (Linux; an error elsewhere).
func rssKiB(pid int) (int, error) {
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

// stat is the fields of /proc/<pid>/stat after the command name.
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

// cpuSeconds is utime+stime of pid (USER_HZ = 100 on Linux).
func cpuSeconds(pid int) (float64, error) {
	f, err := stat(pid)
	if err != nil || len(f) < 13 {
		return 0, fmt.Errorf("stat %d: %v", pid, err)
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100, nil
}

// children are the pids whose parent is pid (our bridge under Neovim; none for the peer).
func children(pid int) []int {
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
