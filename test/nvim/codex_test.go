package nvimtest

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Issue 38 item 3 from Neovim: with codex_ide = true the bridge Neovim starts answers Codex's
// /ide socket ($TMPDIR/codex-ipc/ipc-<uid>.sock) with the buffer and the visual selection, as
// the Codex TUI asks for it (4-byte little-endian length, JSON). Without the option: no socket.
func TestCodexIDEFromNeovim(t *testing.T) {
	tmp := t.TempDir()
	sock := filepath.Join(tmp, "codex-ipc", "ipc-"+strconv.Itoa(os.Getuid())+".sock")
	e := newEnvBefore(t, map[string]any{"codex_ide": true}, func(e *env) { e.nvimEnv = []string{"TMPDIR=" + tmp} })
	poem := e.file(t, "poem.txt", "line one\nline two\nline three\n")
	e.edit(t, poem)
	e.n.input(t, "jV")
	var got struct {
		Result struct {
			IDEContext struct {
				ActiveFile *struct {
					Path, FSPath           string
					ActiveSelectionContent string
				}
				OpenTabs []struct{ FSPath string }
			}
		}
	}
	// The selection reaches the bridge after the plugin's debounce: ask until it is there.
	waitFor(t, "the selection in Codex's answer", func() bool {
		c, err := net.Dial("unix", sock)
		if err != nil {
			return false
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		req, _ := json.Marshal(map[string]any{"type": "request", "requestId": "1", "method": "ide-context",
			"params": map[string]any{"workspaceRoot": e.proj}})
		hdr := binary.LittleEndian.AppendUint32(nil, uint32(len(req)))
		if _, err := c.Write(append(hdr, req...)); err != nil {
			return false
		}
		if _, err := io.ReadFull(c, hdr); err != nil {
			return false
		}
		body := make([]byte, binary.LittleEndian.Uint32(hdr))
		if _, err := io.ReadFull(c, body); err != nil {
			return false
		}
		_ = json.Unmarshal(body, &got)
		a := got.Result.IDEContext.ActiveFile
		return a != nil && a.Path == "poem.txt" && a.FSPath == poem && a.ActiveSelectionContent == "line two" &&
			len(got.Result.IDEContext.OpenTabs) == 1 && got.Result.IDEContext.OpenTabs[0].FSPath == poem
	})
	e.n.input(t, "<Esc>")

	bare := t.TempDir()
	newEnvBefore(t, nil, func(e *env) { e.nvimEnv = []string{"TMPDIR=" + bare} })
	if _, err := os.Lstat(filepath.Join(bare, "codex-ipc")); !os.IsNotExist(err) {
		t.Errorf("a codex-ipc directory without codex_ide: %v", err)
	}
}
