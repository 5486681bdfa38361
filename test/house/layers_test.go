// Package house_test checks the shape of the product's import graph.
package house_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

const module = "github.com/claude-ide-bridge/claude-ide-bridge/"

// maxFloors is how tall internal/ may stand: a package is one floor above the highest package of
// internal/ it imports. Issue 36 asked for one floor fewer than the 7 at 59dbe19; it had grown to 9
// (doctor → codexctx → attach → modeltools → lsp → ide → exclude → userfile → membudget).
const maxFloors = 6

func TestInternalFloors(t *testing.T) {
	imports := internalImports(t, filepath.Join(harness.Root, "internal"))
	floor := map[string]int{}
	var climb func(p string, seen []string) int
	climb = func(p string, seen []string) int {
		if f, ok := floor[p]; ok {
			return f
		}
		if slices.Contains(seen, p) {
			t.Fatalf("import circle: %s", strings.Join(append(seen, p), " → "))
		}
		f := 1
		for _, q := range imports[p] {
			f = max(f, 1+climb(q, append(seen, p)))
		}
		floor[p] = f
		return f
	}
	for p := range imports {
		if f := climb(p, nil); f > maxFloors {
			t.Errorf("%s stands on floor %d (at most %d): %s", p, f, maxFloors, strings.Join(chain(p, imports, floor), " → "))
		}
	}
}

// chain is the tallest import chain from p down to the ground floor.
func chain(p string, imports map[string][]string, floor map[string]int) []string {
	c := []string{p}
	for len(imports[p]) > 0 {
		p = slices.MaxFunc(imports[p], func(a, b string) int { return floor[a] - floor[b] })
		c = append(c, p)
	}
	return c
}

// internalImports maps each product package under dir (by its path below the module, e.g.
// "internal/ide") to the packages of internal/ its non-test files import on Linux, macOS or
// Windows.
func internalImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	root := filepath.Dir(dir)
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		for _, goos := range []string{"linux", "darwin", "windows"} {
			ctx := build.Default
			ctx.GOOS = goos
			pkg, err := ctx.ImportDir(path, 0)
			if err != nil {
				continue // no Go files for this system
			}
			if _, ok := out[rel]; !ok {
				out[rel] = nil
			}
			for _, imp := range pkg.Imports {
				if q, ok := strings.CutPrefix(imp, module); ok && strings.HasPrefix(q, "internal/") && !slices.Contains(out[rel], q) {
					out[rel] = append(out[rel], q)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("read only %d packages under %s", len(out), dir)
	}
	return out
}
