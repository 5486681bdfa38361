package discovery

import "testing"

// The CLI's rule, case by case: equal, or below folder + "/"; a sibling sharing a prefix is not in.
func TestInFolder(t *testing.T) {
	for _, c := range []struct {
		dir, folder string
		want        bool
	}{
		{"/w/proj", "/w/proj", true},
		{"/w/proj/sub/deep", "/w/proj", true},
		{"/w/proj/sub", "/w/proj/", true},
		{"/w/project", "/w/proj", false}, // a shared prefix is not a folder
		{"/w/proj2/x", "/w/proj", false},
		{"/w", "/w/proj", false},
		{"/anything", "/", true},
		{"/w/proj", "", false},
		{"/w/proj/../etc", "/w/proj", true}, // lexical, like the CLI: the caller resolves dir first
		{"/w/Proj", "/w/proj", false},
	} {
		if got := InFolder(c.dir, c.folder); got != c.want {
			t.Errorf("InFolder(%q, %q) = %v, want %v", c.dir, c.folder, got, c.want)
		}
	}
}

// Serving takes the first live lock whose folder holds dir: a dead lock, or one for a sibling
// folder sharing a prefix, is passed over even when it comes first (newest).
func TestServing(t *testing.T) {
	live := func(port int, folders ...string) LockInfo {
		return LockInfo{Port: port, Lock: Lock{PID: 1, WorkspaceFolders: folders}, PIDAlive: true, PortAnswering: true, PortUIDKnown: true}
	}
	dead := live(1, "/w/proj")
	dead.PIDAlive = false
	locks := []LockInfo{dead, live(2, "/w/project"), live(3, "/x", "/w/proj"), live(4, "/w/proj")}
	if li, ok := Serving(locks, "/w/proj/sub"); !ok || li.Port != 3 {
		t.Errorf("Serving = port %d, %v; want 3", li.Port, ok)
	}
	if li, ok := Serving(locks, "/w/other"); ok {
		t.Errorf("Serving(/w/other) = port %d", li.Port)
	}
}
