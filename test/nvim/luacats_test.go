package nvimtest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// lua-language-server is in neither Debian nor npm here, so `lua-language-server --check`
// cannot run in CI. What it would need from us is checked instead: the LuaCATS types of the
// options (claude-ide-bridge.Config and its nested classes) name exactly the options setup()
// accepts and the help documents, so that completion on `opts` is neither missing an option nor
// offering one setup() refuses; and every function of the public API carries a doc comment with
// a ---@param for each of its parameters.

// luaClassFields returns the ---@field names of ---@class name in src.
func luaClassFields(t *testing.T, src, name string) []string {
	t.Helper()
	i := strings.Index(src, "---@class "+name+"\n")
	if i < 0 {
		t.Fatalf("no ---@class %s", name)
	}
	var fields []string
	for _, l := range strings.Split(src[i:], "\n")[1:] {
		if !strings.HasPrefix(l, "---@field ") {
			break
		}
		f := strings.Fields(l)[1]
		fields = append(fields, strings.TrimSuffix(f, "?"))
	}
	sort.Strings(fields)
	return fields
}

// helpDefaults returns the keys of the table under `prefix = {` (or the top level when prefix
// is "") in the defaults block of the help's setup() section.
func helpDefaults(t *testing.T, prefix string) []string {
	t.Helper()
	block := helpDefaultsBlock(t)
	indent := "      "
	if prefix != "" {
		k := strings.Index(block, "      "+prefix+" = {\n")
		if k < 0 {
			// A one-line table: `install = { base_url = "..." },`.
			one := regexp.MustCompile(`(?m)^      ` + prefix + ` = \{ (.*) \},`).FindStringSubmatch(block)
			if one == nil {
				t.Fatalf("no %s = { in the help's defaults", prefix)
			}
			var keys []string
			for _, m := range regexp.MustCompile(`(\w+) = `).FindAllStringSubmatch(one[1], -1) {
				keys = append(keys, m[1])
			}
			sort.Strings(keys)
			return keys
		}
		block = block[k+len(prefix)+11:]
		block = block[:strings.Index(block, "\n      },")]
		indent = "        "
	}
	re := regexp.MustCompile(`(?m)^` + indent + `(\w+) = `)
	var keys []string
	for _, m := range re.FindAllStringSubmatch(block, -1) {
		keys = append(keys, m[1])
	}
	sort.Strings(keys)
	return keys
}

func TestLuaCATSConfigMatchesOptions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(pluginDir, "lua", "claude-ide-bridge", "config.lua"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	n := startNvim(t, t.TempDir())
	for _, c := range []struct{ class, group string }{
		{"claude-ide-bridge.Config", ""},
		{"claude-ide-bridge.TerminalConfig", "terminal"},
		{"claude-ide-bridge.InstallConfig", "install"},
		{"claude-ide-bridge.DiffConfig", "diff"},
	} {
		fields := luaClassFields(t, src, c.class)
		if got, want := strings.Join(fields, " "), strings.Join(helpDefaults(t, c.group), " "); got != want {
			t.Errorf("---@class %s fields %q, the help's defaults %q", c.class, got, want)
		}
		// setup() accepts each annotated field (no "no such option").
		var unknown []string
		n.luaInto(t, &unknown, `local group, fields = ...
			local config = require("claude-ide-bridge.config")
			local out = {}
			for _, f in ipairs(fields) do
				local opts = { [f] = vim.NIL }
				if group ~= "" then opts = { [group] = { [f] = vim.NIL } } end
				local _, problems = config.set(opts)
				for _, p in ipairs(problems) do
					if p:find("no such option", 1, true) then table.insert(out, p) end
				end
			end
			return out`, c.group, fields)
		if len(unknown) > 0 {
			t.Errorf("---@class %s has fields setup() refuses: %v", c.class, unknown)
		}
	}
}

// The public API is init.lua's: setup() there, every other name a field of its facade table
// (`name = module.fn,`) whose function, in that module, carries the doc comment.
func TestLuaCATSPublicAPI(t *testing.T) {
	dir := filepath.Join(pluginDir, "lua", "claude-ide-bridge")
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(dir, name+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(string(b), "\n")
	}
	init := read("init")
	public := map[string][2]string{} // public name -> module, function
	facadeRe := regexp.MustCompile(`^  (\w+) = (\w+)\.(\w+),$`)
	requireRe := regexp.MustCompile(`^local (\w+) = require\("claude-ide-bridge\.(\w+)"\)$`)
	modules := map[string]string{}
	for _, l := range init {
		if m := requireRe.FindStringSubmatch(l); m != nil {
			modules[m[1]] = m[2]
		}
		if m := facadeRe.FindStringSubmatch(l); m != nil {
			if modules[m[2]] == "" {
				t.Fatalf("init.lua: %s = %s.%s: %s is not a required module", m[1], m[2], m[3], m[2])
			}
			public[m[1]] = [2]string{modules[m[2]], m[3]}
		}
	}
	public["setup"] = [2]string{"init", "setup"}
	fnRe := regexp.MustCompile(`^function M\.(\w+)\(([^)]*)\)`)
	for name, at := range public {
		lines := read(at[0])
		found := false
		for i, l := range lines {
			m := fnRe.FindStringSubmatch(l)
			if m == nil || m[1] != at[1] {
				continue
			}
			found = true
			var doc []string
			for k := i - 1; k >= 0 && strings.HasPrefix(lines[k], "---"); k-- {
				doc = append(doc, lines[k])
			}
			if len(doc) == 0 {
				t.Errorf("%s.lua:%d: M.%s (public %s) has no --- doc comment", at[0], i+1, m[1], name)
				continue
			}
			block := strings.Join(doc, "\n")
			for _, p := range strings.Split(m[2], ",") {
				p = strings.TrimSpace(p)
				if p != "" && !regexp.MustCompile(`---@param `+p+`\??\s`).MatchString(block) {
					t.Errorf("%s.lua:%d: M.%s (public %s) has no ---@param %s", at[0], i+1, m[1], name, p)
				}
			}
		}
		if !found {
			t.Errorf("public %s: no function M.%s in %s.lua", name, at[1], at[0])
		}
	}
	if len(public) < 10 {
		t.Fatalf("found %d public functions in init.lua", len(public))
	}
}
