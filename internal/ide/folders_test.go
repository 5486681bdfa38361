package ide

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCleanFolders(t *testing.T) {
	real, _ := filepath.EvalSymlinks(t.TempDir())
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(real, link)
	cwd, _ := os.Getwd()
	got := CleanFolders([]string{link, real + "/sub/..", "", "rel", "/does/not/../exist"})
	want := []string{real, real, filepath.Join(cwd, "rel"), "/does/exist"}
	if !slices.Equal(got, want) {
		t.Fatalf("CleanFolders = %q, want %q", got, want)
	}
}

func TestCheckPID(t *testing.T) {
	for _, ok := range []int{0, 1, os.Getpid(), 1 << 22} {
		if err := CheckPID(ok); err != nil {
			t.Errorf("CheckPID(%d) = %v", ok, err)
		}
	}
	for _, bad := range []int{-1, 1<<22 + 1, 1 << 62} {
		if err := CheckPID(bad); err == nil {
			t.Errorf("CheckPID(%d) passed", bad)
		}
	}
}
