//go:build windows

package bridge_test

import "testing"

// makeFIFO: Windows has no named pipes in the file system; the tests that need one skip.
func makeFIFO(t *testing.T, path string) {
	t.Skip("no FIFOs on Windows")
}
