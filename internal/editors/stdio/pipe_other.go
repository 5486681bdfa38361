//go:build !linux

package stdio

// growPipe is Linux-only (F_SETPIPE_SZ); elsewhere pipes keep their size.
func growPipe(any) {}
