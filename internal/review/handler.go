package review

import (
	"errors"
	"net/http"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// Request is the body of a POST to remote.PathReview.
type Request struct {
	Turn   int    `json:"turn,omitempty"`   // 0: the last turn that changed something
	Revert string `json:"revert,omitempty"` // a path to put back as it was at the turn's start
	Texts  bool   `json:"texts,omitempty"`  // each file's earlier and current text too
}

// Answer is the reply: the turn (after the revert, when one was asked) and every kept turn.
type Answer struct {
	Report   Report    `json:"report"`
	Turns    []Summary `json:"turns"`
	Reverted string    `json:"reverted,omitempty"`
}

// Do carries out req.
func (t *Tracker) Do(req Request) (Answer, error) {
	var a Answer
	if req.Revert != "" {
		if err := t.Revert(req.Turn, req.Revert); err != nil {
			return a, err
		}
		a.Reverted = req.Revert
	}
	r, err := t.Report(req.Turn, req.Texts)
	if err != nil {
		return a, err
	}
	a.Report, a.Turns = r, t.Turns()
	return a, nil
}

// Handler serves remote.PathReview; the caller has authenticated the request.
func Handler(t *Tracker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req Request
		if !transport.DecodePost(w, r, 64<<10, true, &req) { // strict: our own client's body
			return
		}
		a, err := t.Do(req)
		if err != nil {
			code := http.StatusBadRequest
			if errors.Is(err, ErrNoTurn) {
				code = http.StatusConflict
			}
			http.Error(w, err.Error(), code)
			return
		}
		transport.ReplyJSON(w, a)
	})
}
