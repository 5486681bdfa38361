package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// ParseServer parses a --lsp value "EXT=COMMAND": one extension or several separated by commas
// (".ts,.tsx"; the dot is optional), then the command and its arguments separated by spaces
// (no quoting: a server whose path holds a space needs a wrapper script).
func ParseServer(s string) (ServerConfig, error) {
	extPart, cmdPart, ok := strings.Cut(s, "=")
	if !ok {
		return ServerConfig{}, fmt.Errorf("--lsp %q: want EXT=COMMAND, such as .go=gopls", s)
	}
	var exts []string
	for _, e := range strings.Split(extPart, ",") {
		e = NormalizeExt(e)
		if e == "" || strings.ContainsAny(e, `/\ `) {
			return ServerConfig{}, fmt.Errorf("--lsp %q: bad extension %q", s, strings.TrimSpace(e))
		}
		exts = append(exts, e)
	}
	argv := strings.Fields(cmdPart)
	if len(argv) == 0 {
		return ServerConfig{}, fmt.Errorf("--lsp %q: no command after =", s)
	}
	return ServerConfig{Extensions: exts, Command: argv}, nil
}

// knownServers are the servers Detect looks for, in order; of the alternatives for one language
// (pyright-langserver, pylsp) the first found wins.
var knownServers = []ServerConfig{
	{Extensions: []string{".go"}, Command: []string{"gopls"}},
	{Extensions: []string{".rs"}, Command: []string{"rust-analyzer"}},
	{Extensions: []string{".py", ".pyi"}, Command: []string{"pyright-langserver", "--stdio"}},
	{Extensions: []string{".py", ".pyi"}, Command: []string{"pylsp"}},
	{Extensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}, Command: []string{"typescript-language-server", "--stdio"}},
	{Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm"}, Command: []string{"clangd"}},
}

// Detect returns the common servers found by lookPath: gopls, rust-analyzer,
// pyright-langserver or pylsp, typescript-language-server and clangd, each for its extensions,
// with the path found as the command. A nil lookPath is trust.LookPath's search of $PATH with
// the current directory as the workspace (no relative entry, nothing inside it, nothing another
// user can write); each start checks the program again against the Manager's root.
func Detect(lookPath func(string) (string, error)) []ServerConfig {
	if lookPath == nil {
		wd, _ := os.Getwd()
		lookPath = func(name string) (string, error) { return trust.LookPath(name, "", []string{wd}) }
	}
	var out []ServerConfig
	taken := map[string]bool{}
	for _, k := range knownServers {
		if taken[k.Extensions[0]] {
			continue
		}
		p, err := lookPath(k.Command[0])
		if err != nil {
			continue
		}
		argv := append([]string{p}, k.Command[1:]...)
		out = append(out, ServerConfig{Extensions: append([]string(nil), k.Extensions...), Command: argv})
		for _, e := range k.Extensions {
			taken[e] = true
		}
	}
	return out
}

// maxScan bounds the directory entries WithFiles reads.
const maxScan = 20000

// WithFiles keeps the servers with at least one file of their extensions under root (hidden
// folders and node_modules not looked into; at most maxScan entries read, after which the servers
// not yet matched are kept): a detected server is not offered, asked trust for or started for a
// language the folder does not hold (issue 39 item 10: rust-analyzer for a folder with no Rust).
func WithFiles(servers []ServerConfig, root string) []ServerConfig {
	want := map[string]bool{}
	for _, s := range servers {
		for _, e := range s.Extensions {
			want[NormalizeExt(e)] = true
		}
	}
	found, n := map[string]bool{}, 0
	errFull := errors.New("enough")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if n++; n > maxScan {
			return errFull
		}
		if err != nil || path == root {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); strings.HasPrefix(name, ".") || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if e := NormalizeExt(filepath.Ext(d.Name())); want[e] && !found[e] {
			found[e] = true
			if len(found) == len(want) {
				return errFull
			}
		}
		return nil
	})
	var out []ServerConfig
	for _, s := range servers {
		if slices.ContainsFunc(s.Extensions, func(e string) bool { return found[NormalizeExt(e)] || n > maxScan }) {
			out = append(out, s)
		}
	}
	return out
}

// Merge puts explicit servers before detected ones; a detected server's extensions already
// taken by an explicit one are dropped (and the server with them when none is left).
func Merge(explicit, detected []ServerConfig) []ServerConfig {
	out := append([]ServerConfig(nil), explicit...)
	taken := map[string]bool{}
	for _, s := range explicit {
		for _, e := range s.Extensions {
			taken[NormalizeExt(e)] = true
		}
	}
	for _, s := range detected {
		exts := slices.DeleteFunc(slices.Clone(s.Extensions), func(e string) bool { return taken[NormalizeExt(e)] })
		if len(exts) > 0 {
			out = append(out, ServerConfig{Extensions: exts, Command: s.Command})
		}
	}
	return out
}

// Describe is a one-line summary for the user: "gopls (.go), pyright-langserver --stdio (.py
// .pyi)".
func Describe(servers []ServerConfig) string {
	if len(servers) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(servers))
	for _, s := range servers {
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(s.Command, " "), strings.Join(s.Extensions, " ")))
	}
	return strings.Join(parts, ", ")
}
