package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// MCPServerName is the name the model's MCP server is registered under: its tools reach the
// model as mcp__ide-code__<tool>.
const MCPServerName = "ide-code"

// MCPConfig is the CLI's --mcp-config JSON for the model's MCP server of one bridge.
type MCPConfig struct {
	MCPServers map[string]MCPServer `json:"mcpServers"`
}

// MCPServer is one streamable HTTP server entry of an MCP config.
type MCPServer struct {
	Type    string            `json:"type"` // "http"
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// NewMCPConfig describes the model's MCP server on port with its bearer token.
func NewMCPConfig(port int, token string) MCPConfig {
	return MCPConfig{MCPServers: map[string]MCPServer{MCPServerName: {
		Type:    "http",
		URL:     "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer " + token},
	}}}
}

// MCPConfigPath is where the bridge on port keeps its MCP config: next to its lock file, named
// so that the CLI (which reads only *.lock) never takes it for one.
func MCPConfigPath(dir string, port int) string {
	return filepath.Join(dir, strconv.Itoa(port)+".mcp.json")
}

// WriteMCPConfig writes c to MCPConfigPath(dir, port) the way WriteLock writes a lock: 0600 in a
// 0700 dir, through a temporary file renamed over the target (never written through a symlink).
// The file holds a bearer token: it is as secret as the lock file.
func WriteMCPConfig(dir string, port int, c MCPConfig) (path string, err error) {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return "", err
	}
	return writePrivate(dir, port, MCPConfigPath(dir, port), append(data, '\n'))
}

// HookSettingsPath is where the bridge on port keeps the --settings file that gives the CLI its
// hooks (claudestate), beside its lock.
func HookSettingsPath(dir string, port int) string {
	return filepath.Join(dir, strconv.Itoa(port)+".settings.json")
}

// WriteHookSettings writes data to HookSettingsPath(dir, port) as WriteMCPConfig writes.
func WriteHookSettings(dir string, port int, data []byte) (string, error) {
	return writePrivate(dir, port, HookSettingsPath(dir, port), data)
}

// writePrivate writes data to target in dir: 0600 in a 0700 dir, through a temporary file
// renamed over the target (never written through a symlink).
func writePrivate(dir string, port int, target string, data []byte) (path string, err error) {
	if err := ensureDir(dir); err != nil {
		return "", err
	}
	return writeAtomic(dir, "."+strconv.Itoa(port), target, data)
}

// writeAtomic writes data to target through a temporary file in dir (named prefix.*.tmp) made
// 0600 and renamed over it: a reader never sees half a file, and a symlink at target is
// replaced, never written through.
func writeAtomic(dir, prefix, target string, data []byte) (path string, err error) {
	return writeTemp(dir, prefix, target, data, filepath.Base(target), false)
}

// writeTemp is writeAtomic; what names the file in errors, and durable syncs it before the
// rename (the lock file).
func writeTemp(dir, prefix, target string, data []byte, what string, durable bool) (path string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("discovery: write %s: %w", what, err)
		}
	}()
	f, err := os.CreateTemp(dir, prefix+".*.tmp")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return "", err
	}
	if err = f.Chmod(0o600); err != nil {
		return "", err
	}
	if durable {
		if err = f.Sync(); err != nil {
			return "", err
		}
	}
	if err = f.Close(); err != nil {
		return "", err
	}
	if err = os.Rename(f.Name(), target); err != nil {
		return "", err
	}
	return target, nil
}

// ReadMCPConfig reads the MCP config of the bridge on port. It refuses a file that is a
// symlink, or that others may read (a token anyone can read is no secret).
func ReadMCPConfig(dir string, port int) (MCPConfig, error) {
	var c MCPConfig
	path := MCPConfigPath(dir, port)
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("the bridge on port %d has no MCP config (%s); it may be older than this command", port, path)
		}
		return c, err
	}
	if !fi.Mode().IsRegular() {
		return c, fmt.Errorf("%w: %s is not a regular file", ErrUnsafeDir, path)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 { // Windows has no such bits
		return c, fmt.Errorf("%w: %s may be read by others (mode %v)", ErrUnsafeDir, path, fi.Mode().Perm())
	}
	f, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLockSize))
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// removeMCPConfig removes the MCP config beside a lock that was just removed as stale: it
// belonged to the same dead bridge, and its token opens nothing any more.
func removeMCPConfig(li LockInfo) {
	if li.Port > 0 {
		os.Remove(MCPConfigPath(filepath.Dir(li.Path), li.Port))
		os.Remove(HookSettingsPath(filepath.Dir(li.Path), li.Port))
	}
}
