package nvimtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The plugin's mutable state lives in one module, lua/claude-ide-bridge/state.lua (issue 16
// item 6: "one state module instead of mutable module fields wired by closures"). Checked in the
// sources: no module assigns a field of another module it required (the setter wiring that
// diff.request = ... from init.lua was), and no module keeps a module-level slot that starts
// empty (`local x = nil`, `M.x = nil`) to fill in later, which is how state hid in modules.
func TestOneStateModule(t *testing.T) {
	// events.data is public API for Neovim 0.7, whose autocommands carry no data
	// (doc/claude-ide-bridge.txt, claude-ide-bridge-events): it stays where users read it.
	allowed := map[string]bool{"events.lua: M.data = nil": true}
	requireRe := regexp.MustCompile(`^local (\w+) = require\("claude-ide-bridge[\w.]*"\)\s*$`)
	slotRe := regexp.MustCompile(`^(local \w+ = nil\b|local \w+\s*$|M\.\w+ = nil\b)`)
	forwardFn := regexp.MustCompile(`^local (\w+)\s*$`)
	dir := filepath.Join(pluginDir, "lua", "claude-ide-bridge")
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 10 {
		t.Fatalf("found %d Lua files under %s", len(files), dir)
	}
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		if rel == "state.lua" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		lines := strings.Split(src, "\n")
		mods := map[string]bool{}
		for _, l := range lines {
			if m := requireRe.FindStringSubmatch(l); m != nil && m[1] != "state" {
				mods[m[1]] = true
			}
		}
		for i, l := range lines {
			for mod := range mods {
				if regexp.MustCompile(`^\s*` + mod + `\.\w+\s*=[^=]`).MatchString(l) {
					t.Errorf("%s:%d: %q sets a field of module %s; keep shared state in state.lua", rel, i+1, strings.TrimSpace(l), mod)
				}
			}
			if !slotRe.MatchString(l) || allowed[rel+": "+strings.TrimSpace(l)] {
				continue
			}
			// A forward declaration of a local function (`local check` ... `function check(`,
			// or `ascii = function` in a do block) is fine: it is set once, at load.
			if m := forwardFn.FindStringSubmatch(l); m != nil &&
				regexp.MustCompile(`(?m)^\s*(function `+m[1]+`\(|`+m[1]+` = function\b)`).MatchString(src) {
				continue
			}
			t.Errorf("%s:%d: %q is module-level mutable state; keep it in state.lua", rel, i+1, strings.TrimSpace(l))
		}
	}
}

// state.lua is what the public API reports: the bridge connection, the options and the diffs
// are read from it, and a request while the bridge is not ready fails at once (-32099) rather
// than being dropped.
func TestStateModuleIsTheState(t *testing.T) {
	e := newEnv(t, map[string]any{"ide_name": "from state"}, false)
	var got struct {
		Same       bool   `json:"same"`
		Name       string `json:"name"`
		PortsMatch bool   `json:"ports_match"`
		Diffs      bool   `json:"diffs"`
	}
	e.n.luaInto(t, &got, `local state = require("claude-ide-bridge.state")
		local config = require("claude-ide-bridge.config")
		local st = require("claude-ide-bridge").state()
		return {
			same = rawequal(config.options, state.options),
			name = state.options.ide_name,
			ports_match = st.port ~= nil and st.port == state.bridge.info.port,
			diffs = type(state.diffs) == "table" and next(state.diffs) == nil,
		}`)
	if !got.Same || got.Name != "from state" || !got.PortsMatch || !got.Diffs {
		t.Fatalf("state.lua vs the public API: %+v", got)
	}
	e.stopBridge(t)
	// The exit is handled in a vim.schedule callback after the job ends.
	e.n.waitLua(t, `false`, `return require("claude-ide-bridge.state").bridge.client ~= nil`)
	var after struct {
		Client bool   `json:"client"`
		Info   bool   `json:"info"`
		Err    string `json:"err"`
	}
	e.n.luaInto(t, &after, `local state = require("claude-ide-bridge.state")
		local err
		state.request("status", {}, function(e) err = e end)
		return { client = state.bridge.client ~= nil, info = state.bridge.info ~= nil, err = err and err.message or "" }`)
	if after.Client || after.Info || !strings.Contains(after.Err, "not running") {
		t.Fatalf("after stop: %+v, want no client, no info and an immediate 'not running' error", after)
	}
}
