package discovery

import (
	"os"
	"strconv"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// envKeys is the stable order of the variables Env sets.
var envKeys = []string{"CLAUDE_CODE_SSE_PORT", "ENABLE_IDE_INTEGRATION", "no_proxy", "NO_PROXY"}

// loopbackHosts must bypass any proxy: the CLI honours http_proxy even for 127.0.0.1.
var loopbackHosts = []string{"127.0.0.1", "localhost", "::1"}

// Env returns the variables the terminal running claude needs to find this server.
// CLAUDE_CODE_SSE_PORT selects the lock; ENABLE_IDE_INTEGRATION is read by older CLIs.
// no_proxy and NO_PROXY both get the entries already in either variable of this
// process's environment (so neither spelling loses any), then the loopback hosts,
// without duplicates.
func Env(port int) map[string]string { return envWith(port, os.Getenv) }

// envWith is Env with this process's environment read through getenv (tests give their own, so
// they need not change the process's).
func envWith(port int, getenv func(string) string) map[string]string {
	np := noProxy(getenv)
	return map[string]string{
		"CLAUDE_CODE_SSE_PORT":   strconv.Itoa(port),
		"ENABLE_IDE_INTEGRATION": "true",
		"no_proxy":               np,
		"NO_PROXY":               np,
	}
}

func noProxy(getenv func(string) string) string {
	var out []string
	seen := map[string]bool{}
	add := func(list string) {
		for _, e := range strings.Split(list, ",") {
			e = strings.TrimSpace(e)
			k := strings.ToLower(e)
			if e == "" || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, e)
		}
	}
	add(getenv("no_proxy"))
	add(getenv("NO_PROXY"))
	add(strings.Join(loopbackHosts, ","))
	return strings.Join(out, ",")
}

// ExportLines returns one "export K='v'" line per variable in a stable order, for
// eval "$(claude-ide-bridge env)" in a POSIX shell. no_proxy keeps what that shell's no_proxy and
// NO_PROXY hold when the lines run (the bridge's own environment may not be that terminal's:
// issue 39 item 10, "export NO_PROXY=... replaces the user's value"), and NO_PROXY is set to
// the same. An entry in both may then appear twice, which proxies ignore.
func ExportLines(port int) string { return exportsOf(Env(port)) }

func exportsOf(env map[string]string) string {
	var b strings.Builder
	for _, k := range envKeys {
		switch k {
		case "no_proxy":
			b.WriteString("export no_proxy=" + termtext.ShellQuote(env[k]) + `"${no_proxy:+,$no_proxy}${NO_PROXY:+,$NO_PROXY}"` + "\n")
		case "NO_PROXY":
			b.WriteString(`export NO_PROXY="$no_proxy"` + "\n")
		default:
			b.WriteString("export " + k + "=" + termtext.ShellQuote(env[k]) + "\n")
		}
	}
	return b.String()
}
