package ide

import (
	"os"
	"testing"
)

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
