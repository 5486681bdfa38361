package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeagents"
)

// Issue 38: the port variable, end to end. Two serves for one folder both serve the agent, so
// its discovery finds two bridges; the agent started with the line the SECOND serve printed
// (claudecmd's, as an editor's claudeCommand) reaches the second and never the first, although
// the agent's own choice would be the first: Gemini is told the first is the editor it runs
// under (GEMINI_CLI_IDE_PID, as when it runs in that editor's terminal), Qwen finds the first's
// lock the newest.

// twoServes starts two serves serving agent for the same workspace, named First and Second
// (the name the agent shows as its IDE), with the agent's program bin on their $PATH for the
// banner's line.
func twoServes(t *testing.T, agent, bin string) (first, second *agentServe) {
	dir := t.TempDir() // the program under its own name, as a user's $PATH has it
	if err := os.Symlink(bin, filepath.Join(dir, agent)); err != nil {
		t.Fatal(err)
	}
	first = startAgentServe(t, agent, agentServeOptions{Path: dir, Args: []string{"--ide-name", "First"}})
	second = startAgentServe(t, agent, agentServeOptions{Like: first, Path: dir, Args: []string{"--ide-name", "Second"}})
	return first, second
}

// agentLine waits for the line serve's banner prints to start the agent whose port variable
// is env, and returns it and the port it names.
func (s *agentServe) agentLine(env string) (string, int) {
	s.t.Helper()
	re := regexp.MustCompile(`(?m)^  (` + env + `=(\d+) .*)$`)
	var m []string
	waitUntil(s.bound(stepBound), s.t, "serve's "+env+" line", func() bool {
		m = re.FindStringSubmatch(s.out.String())
		return m != nil
	})
	port, _ := strconv.Atoi(m[2])
	return m[1], port
}

// runLine runs a banner's line as a user pastes it in a shell, with args after it.
func runLine(line, args string) *exec.Cmd {
	return exec.Command("sh", "-c", "exec env "+line+" "+args)
}

// connectedTo asks the agent's /ide status until it says which IDE it is connected to.
func connectedTo(t *testing.T, s *agentServe, c *cli) string {
	t.Helper()
	ctx := s.bound(connectBound)
	re := regexp.MustCompile(`Connected to (\w+)`)
	var name string
	for name == "" {
		c.Type("/ide status")
		probe := s.bound(5 * time.Second)
		c.scr.waitFor(probe, "/ide status", func(sc *screen) bool {
			if m := re.FindStringSubmatch(sc.textLocked()); m != nil {
				name = m[1]
			}
			return name != ""
		})
		if ctx.Err() != nil {
			t.Fatal("the agent never said it is connected to an IDE")
		}
	}
	return name
}

// neverAsked fails the test when s's reviewer was asked about a diff.
func neverAsked(t *testing.T, s *agentServe, which string) {
	t.Helper()
	if out := s.out.String(); strings.Contains(out, "proposes a change") || strings.Contains(out, "Accept this change?") {
		t.Fatalf("the %s serve was asked about the diff:\n%s", which, out)
	}
}

func TestGeminiPortVariablePicksTheBridge(t *testing.T) {
	t.Parallel()
	first, second := twoServes(t, "gemini", agentBin(t, "GEMINI_BIN"))
	line, port := second.agentLine("GEMINI_CLI_IDE_SERVER_PORT")
	if _, p1 := first.agentLine("GEMINI_CLI_IDE_SERVER_PORT"); p1 == port {
		t.Fatalf("both serves print port %d", port)
	}
	second.discoveryFile(filepath.Join(second.Tmp, "gemini", "ide", "gemini-ide-server-*-"+strconv.Itoa(port)+".json"))
	if m, _ := filepath.Glob(filepath.Join(second.Tmp, "gemini", "ide", "*.json")); len(m) != 2 {
		t.Fatalf("want the two serves' discovery files, have %q", m)
	}

	api := fakeagents.Gemini()
	t.Cleanup(api.Close)
	cmd := runLine(line, "--approval-mode default")
	cmd.Dir = second.Project
	cmd.Env = append(second.geminiEnv(api), "GEMINI_CLI_IDE_PID="+strconv.Itoa(first.proc.cmd.Process.Pid))
	c := runInPTY(t, cmd, api.Dump)
	c.WaitText(second.bound(connectBound), "Type your message")
	if name := connectedTo(t, second, c); name != "Second" {
		t.Fatalf("Gemini is connected to %s, want Second (the serve whose line started it)", name)
	}

	hello := filepath.Join(second.Project, "hello.txt")
	os.WriteFile(hello, []byte("old\n"), 0o644)
	second.acceptWrite(c, api, "change hello", "Gemini", hello, "to the second\n", "GEMINI TURN DONE")
	neverAsked(t, first, "first")
}

func TestQwenPortVariablePicksTheBridge(t *testing.T) {
	t.Parallel()
	first, second := twoServes(t, "qwen", agentBin(t, "QWEN_BIN"))
	line, port := second.agentLine("QWEN_CODE_IDE_SERVER_PORT")
	_, p1 := first.agentLine("QWEN_CODE_IDE_SERVER_PORT")
	if p1 == port {
		t.Fatalf("both serves print port %d", port)
	}
	second.discoveryFile(filepath.Join(second.Qwen, "ide", strconv.Itoa(port)+".lock"))
	// Qwen's own choice: the newest lock whose workspace holds its folder. Make it the first's.
	firstLock := second.discoveryFile(filepath.Join(second.Qwen, "ide", strconv.Itoa(p1)+".lock"))
	newer := time.Now().Add(time.Minute)
	if err := os.Chtimes(firstLock, newer, newer); err != nil {
		t.Fatal(err)
	}

	api := fakeagents.OpenAI()
	t.Cleanup(api.Close)
	cmd := runLine(line, "--approval-mode default")
	cmd.Dir = second.Project
	cmd.Env = second.qwenEnv(api)
	c := runInPTY(t, cmd, api.Dump)
	c.WaitText(second.bound(connectBound), "Type your message")
	if name := connectedTo(t, second, c); name != "Second" {
		t.Fatalf("Qwen is connected to %s, want Second (the serve whose line started it)", name)
	}

	// Qwen writes an existing file only after reading it in the session: a new file.
	one := filepath.Join(second.Project, "one.txt")
	second.acceptWrite(c, api, "make one", "Qwen", one, "to the second\n", "QWEN TURN DONE")
	neverAsked(t, first, "first")
}
