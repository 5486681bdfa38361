package nvimtest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// helpDefaultsBlock returns the table of defaults the help shows under setup(): Lua, between
// the `>` and `<` lines.
func helpDefaultsBlock(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pluginDir, "doc", "claude-ide-bridge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	help := string(b)
	i := strings.Index(help, "*claude-ide-bridge.setup()*")
	if i < 0 {
		t.Fatal("no *claude-ide-bridge.setup()* in the help")
	}
	help = help[i:]
	start, end := strings.Index(help, "\n>\n"), strings.Index(help, "\n<\n")
	if start < 0 || end < start {
		t.Fatal("no > ... < block of defaults under setup() in the help")
	}
	return help[start+3 : end]
}

// helpOptionNames returns the option names the block documents, dotted in a group
// (`terminal = {` on its own line, or `install = { base_url = ... },` on one), nil ones too.
func helpOptionNames(block string) []string {
	keyRe := regexp.MustCompile(`^\s*(\w+) = (.*)$`)
	var names []string
	group := ""
	for _, l := range strings.Split(block, "\n") {
		if strings.TrimSpace(l) == "}," {
			group = ""
			continue
		}
		m := keyRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		switch rest := m[2]; {
		case rest == "{":
			group = m[1] + "."
		case strings.HasPrefix(rest, "{ ") && group == "":
			for _, in := range regexp.MustCompile(`(\w+) = `).FindAllStringSubmatch(rest, -1) {
				names = append(names, m[1]+"."+in[1])
			}
		default:
			names = append(names, group+m[1])
		}
	}
	sort.Strings(names)
	return names
}

// Options are declared once, in config.lua's OPTIONS; the help's table of defaults is Lua and
// is read as such: each default it shows must be OPTIONS' (nil ones included), and it must
// name exactly OPTIONS' options. A default changed in one place only fails here.
func TestHelpDefaultsAreTheOptions(t *testing.T) {
	block := helpDefaultsBlock(t)
	n := startNvim(t, t.TempDir())
	var got struct {
		Names []string `json:"names"`
		Wrong []string `json:"wrong"`
		Err   string   `json:"err"`
	}
	n.luaInto(t, &got, `local block = ...
		local config = require("claude-ide-bridge.config")
		local chunk, err = loadstring("return " .. block)
		if not chunk then return { names = {}, wrong = {}, err = err } end
		local help = chunk()
		local names, wrong = {}, {}
		for _, opt in ipairs(config.OPTIONS) do
			names[#names + 1] = opt[1]
			local v = help
			for part in opt[1]:gmatch("[^.]+") do
				if type(v) == "table" then v = v[part] else v = nil end
			end
			if not vim.deep_equal(v, opt[2]) then
				wrong[#wrong + 1] = ("%s: the help says %s, config.lua %s"):format(opt[1], vim.inspect(v), vim.inspect(opt[2]))
			end
		end
		table.sort(names)
		return { names = names, wrong = wrong, err = "" }`, block)
	if got.Err != "" {
		t.Fatalf("the help's defaults are not a Lua table: %s\n%s", got.Err, block)
	}
	for _, w := range got.Wrong {
		t.Error(w)
	}
	if help, cfg := strings.Join(helpOptionNames(block), " "), strings.Join(got.Names, " "); help != cfg {
		t.Errorf("the help documents the options\n  %s\nconfig.lua declares\n  %s", help, cfg)
	}
	if len(got.Names) < 20 {
		t.Fatalf("config.OPTIONS has %d options", len(got.Names))
	}
}
