package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// dialTimeout bounds the "is anyone listening" probe per lock.
const dialTimeout = 300 * time.Millisecond

// maxLockSize caps how much of a lock file is read; real ones are a few hundred bytes.
const maxLockSize = 1 << 20

// LockInfo is one lock file found by ListLocks, with the liveness checks done on it.
type LockInfo struct {
	Path     string
	Port     int  // from the file name, as the CLI takes it; 0 if the name is not <digits>.lock
	Lock     Lock // zero if ParseErr is set
	ParseErr error
	PIDAlive bool // kill(pid, 0) succeeds or fails with EPERM
	// PortAnswering: a TCP connect to 127.0.0.1:Port succeeded, or was not refused within 300ms.
	PortAnswering bool
	// PortForeign: the port's listener belongs to another user (Linux, /proc/net/tcp): the port
	// was freed and taken over, so the lock no longer leads to its IDE (issue 15 item 3). Such
	// a lock is never trusted, whatever its pid.
	PortForeign bool
	// PortUID is the uid owning the port's listener, when PortUIDKnown (Linux only).
	PortUID      int
	PortUIDKnown bool
	Ours         bool // Lock.Bridge == BridgeMarker: written by claude-ide-bridge
	// Foreign: not a file this tool may ever delete: its name is not <digits>.lock, it is not
	// a regular file (a symlink, a FIFO), or its directory is a symlink. Reported, never
	// removed (issue 15 item 6: `ide` a symlink to a project deleted Cargo.lock).
	Foreign string

	mtime time.Time
}

// ListLocks returns every *.lock file in dirs, newest modification first (the CLI's
// order). A missing dir is skipped. Unreadable or malformed files are listed with
// ParseErr set. Errors reading a dir are returned together with what was found.
func ListLocks(dirs []string) ([]LockInfo, error) {
	var (
		out  []LockInfo
		errs []error
		seen = map[string]bool{}
	)
	for _, dir := range dirs {
		dir = filepath.Clean(dir)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		realDir := true
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			realDir = false
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("discovery: list locks: %w", err))
			}
			continue
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".lock") || e.IsDir() {
				continue
			}
			li := inspect(filepath.Join(dir, e.Name()))
			if !realDir && li.Foreign == "" {
				li.Foreign = "its directory is a symlink"
			}
			out = append(out, li)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].mtime.Equal(out[j].mtime) {
			return out[i].mtime.After(out[j].mtime)
		}
		return out[i].Path < out[j].Path
	})
	return out, errors.Join(errs...)
}

// InspectLock reads and checks one lock file, as ListLocks does for each (see Live).
func InspectLock(path string) LockInfo { return inspect(path) }

// inspect reads and checks one lock file.
func inspect(path string) LockInfo {
	li := LockInfo{Path: path}
	name := strings.TrimSuffix(filepath.Base(path), ".lock")
	if p, err := strconv.Atoi(name); err == nil && p > 0 && p <= maxPort && isDigits(name) {
		li.Port = p
	}
	li.ParseErr = readLock(path, &li)
	if li.Port == 0 {
		li.Foreign = "name is not <port>.lock"
		if li.ParseErr == nil {
			li.ParseErr = fmt.Errorf("name %q is not <port>.lock", filepath.Base(path))
		}
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() && li.Foreign == "" {
		li.Foreign = "not a regular file (" + fi.Mode().Type().String() + ")"
	}
	if li.ParseErr != nil {
		li.Lock = Lock{}
	}
	li.PIDAlive = pidAlive(li.Lock.PID)
	li.Ours = li.Lock.Bridge == BridgeMarker
	if li.Port > 0 {
		li.PortAnswering = portAnswering(li.Port)
		if uid, ok := listenerUID(li.Port); ok {
			li.PortUID, li.PortUIDKnown = uid, true
			li.PortForeign = uid != os.Geteuid()
		}
	}
	return li
}

// readLock fills li.mtime and li.Lock. Only regular files are read, so a FIFO named
// x.lock cannot block the listing.
func readLock(path string, li *LockInfo) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	li.mtime = fi.ModTime()
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLockSize))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &li.Lock); err != nil {
		return fmt.Errorf("bad JSON: %w", err)
	}
	return nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// portAnswering: something listens on 127.0.0.1:port. Only a refusal says no: on loopback the
// kernel answers a connect at once, so a timeout means a listener whose backlog is full, or a
// loaded machine that did not run this process within dialTimeout (at load 25, 40 of 300 dials
// of a live listener did not), and a running IDE's lock must not look stale then (SweepOwn).
func portAnswering(port int) bool {
	c, err := net.DialTimeout("tcp4", net.JoinHostPort(listenHost, strconv.Itoa(port)), dialTimeout)
	if err != nil {
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}
	c.Close()
	return true
}

// Stale reports whether the lock can be removed without harming a running IDE. Never a Foreign
// file, and never a lock whose port answers as one of ours (a listener of this user): whatever
// its content (not JSON, a BOM, a string pid, a pid of another pid namespace such as a
// container or WSL), a lock whose port answers may be in use. Otherwise: it is unparseable, or
// its pid is dead, or it is ours and nothing answers on its port, or it has no pid and nothing
// answers (the CLI's own start-up rule), or its port is held by another user (PortForeign).
// Another IDE's lock with a live pid is never stale while nothing listens on its port: it may
// still be starting.
func (li LockInfo) Stale() bool {
	switch {
	case li.Foreign != "":
		return false
	case li.PortForeign:
		return true
	case li.PortAnswering:
		return false
	case li.ParseErr != nil:
		return true
	case li.Lock.PID > 0 && !li.PIDAlive:
		return true
	case li.PIDAlive && li.PortAnswering:
		return false
	case li.Ours && !li.PortAnswering:
		return true
	case li.Lock.PID <= 0 && !li.PortAnswering:
		return true
	}
	return false
}

// CleanLocks removes the Stale locks in dirs and returns their paths.
func CleanLocks(dirs []string) (removed []string, err error) {
	return removeStale(dirs, false)
}

// removeStale removes the Stale locks in dirs (only the Ours ones if ours) with their MCP
// config files.
func removeStale(dirs []string, ours bool) (removed []string, err error) {
	locks, err := ListLocks(dirs)
	errs := []error{err}
	for _, li := range locks {
		if !li.Stale() || (ours && !li.Ours) {
			continue
		}
		if err := RemoveLock(li.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		removeMCPConfig(li)
		removed = append(removed, li.Path)
	}
	return removed, errors.Join(errs...)
}

// FormatLocks writes locks as an aligned table, one row per lock.
func FormatLocks(w io.Writer, locks []LockInfo) {
	if len(locks) == 0 {
		fmt.Fprintln(w, "no lock files")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PORT\tIDE\tPID\tPORT OPEN\tOURS\tSTALE\tWORKSPACE\tPATH")
	for _, li := range locks {
		port, ide, pid, ws := "-", "-", "-", "-"
		if li.Port > 0 {
			port = strconv.Itoa(li.Port)
		}
		if li.Lock.IDEName != "" {
			ide = li.Lock.IDEName
		}
		if li.Lock.PID > 0 {
			pid = strconv.Itoa(li.Lock.PID) + " (" + yesNo(li.PIDAlive, "alive", "dead") + ")"
		}
		if len(li.Lock.WorkspaceFolders) > 0 {
			ws = strings.Join(li.Lock.WorkspaceFolders, ",")
		}
		path := li.Path
		switch {
		case li.Foreign != "":
			path += " (left alone: " + li.Foreign + ")"
		case li.ParseErr != nil:
			path += " (unreadable: " + li.ParseErr.Error() + ")"
		}
		open := yesNo(li.PortAnswering, "yes", "no")
		if li.PortForeign {
			open = "another user's"
		}
		// Lock contents are untrusted: escaped for the terminal (issue 15 item 1).
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", port, termtext.Line(ide), pid,
			open, yesNo(li.Ours, "yes", "no"),
			yesNo(li.Stale(), "yes", "no"), termtext.Line(ws), termtext.Line(path))
	}
	tw.Flush()
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}
