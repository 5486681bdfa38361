package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// BodyTimeout bounds how long a request body may take to arrive (ReadBody): the bridge's clients
// send at most a few MiB over loopback at once, and one that stalls mid-body would hold its
// connection (one of the bridge's 64) and a goroutine for good. A var for the tests of it.
var BodyTimeout = 10 * time.Second

// DecodePost reads the JSON body of a request to one of the bridge's POST endpoints (the shell's
// mention, select, review, hook and permission; the caller has authenticated it) into v. When
// it cannot, it answers the request itself and returns false:
//   - a method other than POST: 405 "only POST", with "Allow: POST";
//   - a body over max bytes: 413 "request body over <max> bytes" (BodyRefusal; nothing past max
//     is read);
//   - a body not sent whole within BodyTimeout: 408 "request body not sent within 10s";
//   - a body that is not JSON for v (with strict, also a field v does not have): 400
//     "bad request body: <why>".
//
// The whole body is read (ReadBody); only its first JSON value is decoded, anything after it is
// ignored.
func DecodePost(w http.ResponseWriter, r *http.Request, max int64, strict bool, v any) bool {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "only POST", http.StatusMethodNotAllowed)
		return false
	}
	body, status, reason := ReadBody(w, r, max)
	if status == 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		if strict {
			dec.DisallowUnknownFields()
		}
		status, reason = BodyRefusal(dec.Decode(v))
	}
	if status != 0 {
		http.Error(w, reason, status)
		return false
	}
	return true
}

// ReadBody reads r's whole body, at most max bytes and within BodyTimeout; when it cannot, it
// returns the status and reason to answer with (BodyRefusal) and answers nothing itself.
//
// The deadline bounds the body alone: at its end net/http clears it for its background read,
// so a handler that then waits (the permission hook waits for the user) keeps its request and
// its context.
func ReadBody(w http.ResponseWriter, r *http.Request, max int64) (body []byte, status int, reason string) {
	// Unsupported only by writers that are not a server's (a recorder): no deadline to set.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if status, reason := BodyRefusal(err); status != 0 {
		return nil, status, reason
	}
	return body, 0, ""
}

// BodyRefusal is the answer to a request body read through http.MaxBytesReader with err: 0 for
// no error, 413 "request body over <limit> bytes" when the body passed the reader's limit, 408
// when its read deadline passed, else 400 "bad request body: <err>".
func BodyRefusal(err error) (status int, reason string) {
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return 0, ""
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", tooBig.Limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, fmt.Sprintf("request body not sent within %v", BodyTimeout)
	default:
		return http.StatusBadRequest, "bad request body: " + err.Error()
	}
}

// ReplyJSON answers 200 with v as a JSON body.
func ReplyJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
