package jsonrpc

// SetMaxFrame lowers a stdio stream's frame limit so tests need not send 256 MiB.
func SetMaxFrame(s Stream, n int) { s.(*ioStream).max = n }
