package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

// AuthHeader is the WebSocket's auth header (transport.AuthHeader), repeated here so that the
// client does not import the server side.
const AuthHeader = "X-Claude-Code-Ide-Authorization"

// ErrNoBridge is returned by Find when no running claude-ide-bridge serves the path.
var ErrNoBridge = errors.New("no running claude-ide-bridge serves this file's workspace")

// Bridge is a running bridge found through its lock file.
type Bridge struct {
	Port   int
	Token  string
	Folder string // the workspace folder that holds the path
	Lock   string // the lock file
	IDE    string // its ideName
}

// Find returns the bridge that serves path (absolute, symlinks resolved): among the lock files
// in dirs written by claude-ide-bridge whose process is alive and whose port answers, the one with
// the most specific workspace folder holding path; of equals, the newest lock. Locks of other
// IDEs are never chosen: they have no such endpoint. It returns ErrNoBridge when there is none.
func Find(dirs []string, path string) (Bridge, error) {
	locks, err := discovery.ListLocks(dirs)
	var (
		best    Bridge
		skipped []string
	)
	for _, li := range locks {
		if !li.Ours {
			continue
		}
		f := matchFolder(path, li.Lock.WorkspaceFolders)
		if f == "" {
			continue
		}
		// The one liveness check of every command that sends a token (discovery.Live).
		if why := li.Live(); why != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", li.Path, why))
			continue
		}
		if len(f) <= len(best.Folder) {
			continue // locks are newest first: an equal match later is older
		}
		best = Bridge{Port: li.Port, Token: li.Lock.AuthToken, Folder: f, Lock: li.Path, IDE: li.Lock.IDEName}
	}
	if best.Port == 0 {
		if len(skipped) > 0 {
			err = errors.Join(err, errors.New("skipped "+strings.Join(skipped, "; ")))
		}
		if err != nil {
			return Bridge{}, fmt.Errorf("%w (%v)", ErrNoBridge, err)
		}
		return Bridge{}, ErrNoBridge
	}
	return best, nil
}

// Resolve makes a command-line path absolute (against cwd) and resolves its symlinks, as the
// bridge resolves its workspace folders.
func Resolve(path string) (string, error) {
	real, err := discovery.Resolve(path)
	if err != nil {
		return "", fmt.Errorf("no such file: %s", path)
	}
	return real, nil
}

// client never uses a proxy: the bridge is on loopback, and the token must not leave it.
// Its connections go through discovery.DialOwn: nothing is written to a socket of another user.
var client = &http.Client{
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true, DialContext: discovery.DialOwnAddr},
	Timeout:   10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("redirects are not followed")
	},
}

// waitClient is client without its time bound: a request that waits for the user (the
// PermissionRequest hook) is bounded by its context alone.
var waitClient = &http.Client{Transport: client.Transport, CheckRedirect: client.CheckRedirect}

// Send posts req to the bridge's path (PathMention or PathSelect) and returns its reply. A
// refusal comes back as an error holding the bridge's reason.
func Send(ctx context.Context, b Bridge, path string, req Request) (Reply, error) {
	var reply Reply
	err := Post(ctx, b, path, req, &reply, maxBody)
	return reply, err
}

// Post posts req as JSON to the bridge's path and decodes its answer (at most limit bytes) into
// reply. A refusal comes back as an error holding the bridge's reason.
func Post(ctx context.Context, b Bridge, path string, req, reply any, limit int64) error {
	return post(ctx, client, b, path, req, reply, limit)
}

// PostWait is Post for a request that waits for the user: only ctx bounds it.
func PostWait(ctx context.Context, b Bridge, path string, req, reply any, limit int64) error {
	return post(ctx, waitClient, b, path, req, reply, limit)
}

func post(ctx context.Context, client *http.Client, b Bridge, path string, req, reply any, limit int64) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(b.Port) + path
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set(AuthHeader, b.Token)
	resp, err := client.Do(hr)
	if err != nil {
		return fmt.Errorf("bridge on port %d: %w", b.Port, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return err
	}
	if int64(len(data)) > limit {
		return fmt.Errorf("the bridge's answer is over %d bytes", limit)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusUpgradeRequired, resp.StatusCode == http.StatusMethodNotAllowed:
		return fmt.Errorf("the bridge on port %d does not serve %s (an older version?)", b.Port, path)
	default:
		return fmt.Errorf("the bridge refused: %s", strings.TrimSpace(string(data)))
	}
	if err := json.Unmarshal(data, reply); err != nil {
		return fmt.Errorf("the bridge answered %q: %w", data, err)
	}
	return nil
}
