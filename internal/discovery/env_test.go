package discovery

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// Spec: "When launching Claude, the IDE sets: CLAUDE_CODE_SSE_PORT: The WebSocket server
// port; ENABLE_IDE_INTEGRATION: Set to "true"". Facts: "set no_proxy/NO_PROXY to include
// 127.0.0.1,localhost,::1 in the terminal you launch it from."
func TestEnv(t *testing.T) {
	t.Parallel()
	getenv := vars(map[string]string{"no_proxy": "", "NO_PROXY": ""})
	want := map[string]string{
		"CLAUDE_CODE_SSE_PORT":   "34567",
		"ENABLE_IDE_INTEGRATION": "true",
		"no_proxy":               "127.0.0.1,localhost,::1",
		"NO_PROXY":               "127.0.0.1,localhost,::1",
	}
	if got := envWith(34567, getenv); !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %v\nwant %v", got, want)
	}
	wantExport := "export CLAUDE_CODE_SSE_PORT=34567\n" +
		"export ENABLE_IDE_INTEGRATION=true\n" +
		"export no_proxy=127.0.0.1,localhost,::1\"${no_proxy:+,$no_proxy}${NO_PROXY:+,$NO_PROXY}\"\n" +
		"export NO_PROXY=\"$no_proxy\"\n"
	if got := exportsOf(envWith(34567, getenv)); got != wantExport {
		t.Errorf("ExportLines = %q\nwant %q", got, wantExport)
	}
}

// Editor protocol: "existing no_proxy entries of the bridge's environment are kept".
func TestEnvKeepsNoProxy(t *testing.T) {
	t.Parallel()
	want := "corp.example,localhost,.internal,10.0.0.0/8,127.0.0.1,::1"
	env := envWith(1, vars(map[string]string{"no_proxy": "corp.example, localhost,,.internal", "NO_PROXY": "10.0.0.0/8,CORP.example"}))
	if env["no_proxy"] != want || env["NO_PROXY"] != want {
		t.Errorf("no_proxy = %q, NO_PROXY = %q, want both %q", env["no_proxy"], env["NO_PROXY"], want)
	}
}

// shellEnv runs script in sh and returns the four variables as sh sees them.
func shellEnv(t *testing.T, script string) []string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	script += "\n" + `printf '%s\n' "$CLAUDE_CODE_SSE_PORT" "$ENABLE_IDE_INTEGRATION" "$no_proxy" "$NO_PROXY"`
	cmd := exec.Command(sh, "-c", script)
	cmd.Env = []string{} // only what the script sets
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// What a POSIX shell makes of ShellWord and ExportLines must be exactly Env, even for
// values that need quoting.
func TestEnvShellRoundTrip(t *testing.T) {
	t.Parallel()
	env := envWith(34567, vars(map[string]string{"no_proxy": `it's a host; $(touch /tmp/x) "q"`}))
	want := []string{env["CLAUDE_CODE_SSE_PORT"], env["ENABLE_IDE_INTEGRATION"], env["no_proxy"], env["NO_PROXY"]}

	if got := shellEnv(t, exportsOf(env)); !reflect.DeepEqual(got, want) {
		t.Errorf("eval ExportLines: %q\nwant %q", got, want)
	}
}

// vars is a getenv over m.
func vars(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Issue 39 item 10: "`export NO_PROXY=...` replaces the user's value". The terminal that runs
// the lines keeps its own entries in both variables, the loopback hosts added.
func TestExportLinesKeepTheShellsNoProxy(t *testing.T) {
	t.Parallel()
	lines := exportsOf(envWith(34567, vars(nil)))
	got := shellEnv(t, "no_proxy=corp.example NO_PROXY='10.0.0.0/8'\n"+lines)
	for _, v := range got[2:] {
		for _, want := range []string{"corp.example", "10.0.0.0/8", "127.0.0.1", "localhost", "::1"} {
			if !strings.Contains(","+v+",", ","+want+",") {
				t.Errorf("after eval: no_proxy %q, NO_PROXY %q; %q lost", got[2], got[3], want)
			}
		}
	}
}
