package jsonrpc

// SetMaxFrame lowers a stdio stream's frame limit so tests need not send 256 MiB.
func SetMaxFrame(s Stream, n int) { s.(*ioStream).max = n }

// Substituted reports whether a remembered big string in d would not be read again (object.go).
func Substituted(d []byte) bool {
	_, at, _ := substitute(d)
	return at >= 0
}
