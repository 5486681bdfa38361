//go:build !linux

package nvimtest

import "testing"

// proc, descendants and waitGone: see children_linux_test.go; elsewhere what Neovim started is
// not waited for.
type proc struct{}

func descendants(int) []proc      { return nil }
func waitGone(*testing.T, []proc) {}
