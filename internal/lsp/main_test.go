package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if fakeBin != "" {
			os.RemoveAll(filepath.Dir(fakeBin))
		}
	}))
}

// serverBin finds a language server for a test: $ENV, else name on $PATH. Without one the test
// is skipped, except under CI (CI=true), where scripts/test installs them and a skip would hide
// a missing install.
func serverBin(t *testing.T, env, name string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not found ($%s unset, not on PATH): scripts/test installs it", name, env)
	}
	t.Skipf("%s not found ($%s unset, not on PATH); scripts/test installs it", name, env)
	return ""
}
