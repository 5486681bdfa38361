package jsonrpc

// SetMaxFrame lowers a stdio stream's frame limit so tests need not send 256 MiB.
func SetMaxFrame(s Stream, n int) { s.(*ioStream).max = n }

// Valid is the scanner's check of one JSON value (scan.go), compared with encoding/json's.
func Valid(d []byte) error { return valid(d, nil) }

// Duplicate is the shallowest duplicate key the scanner finds in d ("" for none), and the
// scanner's syntax error.
func Duplicate(d []byte) (string, error) {
	var st keyState
	err := valid(d, &st)
	return st.dup, err
}
