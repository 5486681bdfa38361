package lsp_test

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if fakeBin != "" {
			os.RemoveAll(filepath.Dir(fakeBin))
		}
	}))
}

// serverBin finds a language server for a test, or skips (fails in CI): harness.ServerBin.
func serverBin(t *testing.T, env, name string) string {
	t.Helper()
	return harness.ServerBin(t, env, name)
}
