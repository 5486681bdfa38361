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

// EnvPrefix returns Env as "K=v K=v ..." in a stable order, to put before a command in a
// POSIX shell. Values are single-quoted only when they contain characters the shell treats
// specially.
func EnvPrefix(port int) string { return prefixOf(Env(port)) }

func prefixOf(env map[string]string) string {
	parts := make([]string, 0, len(envKeys))
	for _, k := range envKeys {
		parts = append(parts, k+"="+termtext.ShellQuote(env[k]))
	}
	return strings.Join(parts, " ")
}

// ExportLines returns one "export K=v" line per variable (v shell-quoted) in a stable order, for
// eval "$(claude-ide-bridge env)" in a POSIX shell.
func ExportLines(port int) string { return exportsOf(Env(port)) }

func exportsOf(env map[string]string) string {
	var b strings.Builder
	for _, k := range envKeys {
		b.WriteString("export " + k + "=" + termtext.ShellQuote(env[k]) + "\n")
	}
	return b.String()
}
