//go:build !unix

package stdio

import "os"

// pollable: elsewhere stdin is read by the pump goroutine.
func pollable(*os.File) (*os.File, func()) { return nil, nil }
