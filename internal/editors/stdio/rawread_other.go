//go:build !linux

package stdio

import "os"

func fileReader(f *os.File) func([]byte) (int, error) { return f.Read }
