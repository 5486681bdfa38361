package nvimtest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// luaRequires returns, for each module under lua/claude-ide-bridge ("init", "bridge",
// "providers.snacks", ...), the plugin modules it requires, at load time or inside a function.
func luaRequires(t *testing.T) map[string][]string {
	t.Helper()
	dir := filepath.Join(pluginDir, "lua", "claude-ide-bridge")
	reqRe := regexp.MustCompile(`require\(?\s*"claude-ide-bridge(?:\.([\w.]+))?"|pcall\(require, "claude-ide-bridge\.([\w.]+)"`)
	graph := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lua") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := strings.ReplaceAll(strings.TrimSuffix(rel, ".lua"), string(filepath.Separator), ".")
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, m := range reqRe.FindAllStringSubmatch(string(b), -1) {
			dep := m[1] + m[2]
			if dep == "" {
				dep = "init"
			}
			if dep != name && !seen[dep] {
				seen[dep] = true
				graph[name] = append(graph[name], dep)
			}
		}
		sort.Strings(graph[name])
		if graph[name] == nil {
			graph[name] = []string{}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

// init.lua is the facade: no module requires it, and the plugin's modules require each other
// without a circle (issue 36 item 5: one was init, commands, review, tree and trust).
func TestRequireGraphHasNoCircle(t *testing.T) {
	graph := luaRequires(t)
	if len(graph) < 10 || graph["init"] == nil {
		t.Fatalf("read %d modules: %v", len(graph), graph)
	}
	for mod, deps := range graph {
		for _, d := range deps {
			if d == "init" {
				t.Errorf("%s.lua requires claude-ide-bridge (init.lua, the facade)", mod)
			}
		}
	}
	// Depth-first search; a module met again while on the path closes a circle.
	const (
		unseen = iota
		onPath
		done
	)
	mark := map[string]int{}
	var path []string
	var visit func(m string)
	visit = func(m string) {
		mark[m] = onPath
		path = append(path, m)
		for _, d := range graph[m] {
			switch mark[d] {
			case onPath:
				i := len(path) - 1
				for path[i] != d {
					i--
				}
				t.Errorf("require circle: %s -> %s", strings.Join(path[i:], " -> "), d)
			case unseen:
				visit(d)
			}
		}
		path = path[:len(path)-1]
		mark[m] = done
	}
	names := make([]string, 0, len(graph))
	for m := range graph {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		if mark[m] == unseen {
			visit(m)
		}
	}
}
