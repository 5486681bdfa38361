package claudecmd

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// agentPortEnv is, per agent the bridge serves as an IDE companion, the variable that makes
// the CLI choose this bridge's companion when several discovery files match its folder
// (../shared/other-clis-facts.md sections 1 and 2). The token stays in the discovery file
// (0600): the CLI reads it from there, and an environment is seen by every child process.
var agentPortEnv = map[string]string{
	"gemini": "GEMINI_CLI_IDE_SERVER_PORT",
	"qwen":   "QWEN_CODE_IDE_SERVER_PORT",
}

// agentTitles name the agents in errors.
var agentTitles = map[string]string{"gemini": "Gemini CLI", "qwen": "Qwen Code"}

// agentPackages are the npm packages that install each agent, for the error saying it is
// not found.
var agentPackages = map[string]string{"gemini": "@google/gemini-cli", "qwen": "@qwen-code/qwen-code"}

// composeAgent is r's command line for an agent other than claude: its program (looked up
// as claude's is), the user's words and Args, and the variable naming its companion's port.
// No permission flag, hooks or --mcp-config: those are Claude's. An agent unknown, one this
// bridge does not serve, or one whose program is not found (the error says what to install)
// is an error saying so.
func composeAgent(r Request, b Bridge) (Command, error) {
	env, ok := agentPortEnv[r.Agent]
	if !ok {
		return Command{}, fmt.Errorf("unknown agent %q: claude, gemini or qwen", r.Agent)
	}
	port, ok := b.Agents[r.Agent]
	if !ok {
		why := "serve --agents leaves it out"
		if r.Agent == "qwen" {
			why += ", or Qwen Code is not set up here (neither $QWEN_HOME nor ~/.qwen)"
		}
		return Command{}, fmt.Errorf("this bridge does not serve %s (%s; docs/gemini.md)", agentTitles[r.Agent], why)
	}
	argv, err := program(r, r.Agent, b.Folders)
	if err != nil {
		if len(r.Command) == 0 && !errors.Is(err, trust.ErrUnsafeProgram) { // not found
			err = fmt.Errorf("%w; to install %s: npm install -g %s", err, agentTitles[r.Agent], agentPackages[r.Agent])
		}
		return Command{}, err
	}
	c := Command{Argv: append(argv, r.Args...), Env: map[string]string{env: strconv.Itoa(port)}}
	c.lines()
	return c, nil
}
