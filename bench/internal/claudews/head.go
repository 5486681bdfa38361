package claudews

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Head is what a reader needs to route a message: its id and method.
type Head struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// ParseHead reads a message's id and method. A big message (64 KiB or more) is looked at in its
// first 4 KiB only when either is there, where decoding it whole would cost more than what is
// measured: the bridge, the Node sidecar and the echo write them before params and result. Lua's
// tables keep no key order, so claudecode.nvim may put "id" after a 10 MiB result: with neither
// in the first 4 KiB the message is decoded whole (after its frame was stamped, see Frame).
func ParseHead(msg []byte) Head {
	var h Head
	if len(msg) >= 64<<10 {
		id, okID := RawField(msg[:4096], "id")
		m, okM := RawField(msg[:4096], "method")
		if okID || okM {
			h.ID = id
			h.Method, _ = strconv.Unquote(string(m))
			return h
		}
	}
	json.Unmarshal(msg, &h)
	return h
}

// RawField returns the raw JSON value of the first "key": in msg: a whole string token
// (quotes included) or, for other values, the bytes up to the next ',' or '}'. For messages of
// a few MiB, where decoding would cost more than the thing measured. It is safe against false
// matches inside strings: there every '"' is escaped, so `"key":` cannot occur.
func RawField(msg []byte, key string) ([]byte, bool) {
	pat := `"` + key + `":`
	i := bytes.Index(msg, []byte(pat))
	if i < 0 {
		return nil, false
	}
	v := msg[i+len(pat):]
	v = bytes.TrimLeft(v, " ")
	if len(v) == 0 {
		return nil, false
	}
	if v[0] != '"' {
		end := bytes.IndexAny(v, ",}")
		if end < 0 {
			return nil, false
		}
		return bytes.TrimSpace(v[:end]), true
	}
	for j := 1; ; {
		k := bytes.IndexByte(v[j:], '"')
		if k < 0 {
			return nil, false
		}
		q := j + k
		bs := 0
		for p := q - 1; p > 0 && v[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return v[:q+1], true
		}
		j = q + 1
	}
}
