//go:build !unix

package stdio

import "os"

// fdReader: on Windows stdin is read by the pump goroutine.
type fdReader struct{}

func newFDReader(*os.File, <-chan struct{}) *fdReader { return nil }

func (*fdReader) Read([]byte) (int, error) { return 0, os.ErrClosed }
func (*fdReader) Close()                   {}
