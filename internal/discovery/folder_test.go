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
