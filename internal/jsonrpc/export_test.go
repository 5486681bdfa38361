package jsonrpc

// SetMaxFrame lowers a stdio stream's frame limit so tests need not send 256 MiB.
func SetMaxFrame(s Stream, n int) { s.(*ioStream).max = n }

// Remembered reports whether d is an object in the memo of big objects (object.go).
func Remembered(d []byte) bool {
	_, ok := recall(d)
	return ok
}
