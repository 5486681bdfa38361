//go:build !linux

package main

import "os"

// growPipe is Linux-only (F_SETPIPE_SZ), as in the bridge.
func growPipe(*os.File) {}
