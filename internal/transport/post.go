package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// DecodePost reads the JSON body of a request to one of the bridge's POST endpoints (the shell's
// mention, select, review, hook and permission; the caller has authenticated it) into v. When
// it cannot, it answers the request itself and returns false:
//   - a method other than POST: 405 "only POST", with "Allow: POST";
//   - a body over max bytes: 413 "request body over <max> bytes" (BodyRefusal; nothing past max
//     is read);
//   - a body that is not JSON for v (with strict, also a field v does not have): 400
//     "bad request body: <why>".
//
// Only the first JSON value is read.
func DecodePost(w http.ResponseWriter, r *http.Request, max int64, strict bool, v any) bool {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "only POST", http.StatusMethodNotAllowed)
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, max))
	if strict {
		dec.DisallowUnknownFields()
	}
	if status, reason := BodyRefusal(dec.Decode(v)); status != 0 {
		http.Error(w, reason, status)
		return false
	}
	return true
}

// BodyRefusal is the answer to a request body read through http.MaxBytesReader with err: 0 for
// no error, 413 "request body over <limit> bytes" when the body passed the reader's limit, else
// 400 "bad request body: <err>".
func BodyRefusal(err error) (status int, reason string) {
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return 0, ""
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", tooBig.Limit)
	default:
		return http.StatusBadRequest, "bad request body: " + err.Error()
	}
}

// ReplyJSON answers 200 with v as a JSON body.
func ReplyJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
