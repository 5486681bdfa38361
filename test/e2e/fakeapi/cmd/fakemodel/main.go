// Command fakemodel runs the fake Messages API, to try the bridge and the real Claude Code CLI by
// hand without a model. Either a one-edit script that every prompt plays (Read the file, Edit
// old→new, then a closing text):
//
//	go run ./test/e2e/fakeapi/cmd/fakemodel -file /abs/hello.txt -old hello -new goodbye
//
// or a script of several turns from a JSON file, played in order across prompts (each request of
// the conversation takes the next turn; a turn with tools ends with stop_reason tool_use, so the
// CLI runs them and asks again; one with only text ends the prompt):
//
//	go run ./test/e2e/fakeapi/cmd/fakemodel -script turns.json
//
// where turns.json is a list of {"text": "...", "tools": [{"name": "Edit", "input": {...}}]}
// (example: test/e2e/fakeapi/cmd/fakemodel/example.json; docs/neovim.md, "Trying it by hand").
// Point the CLI at it with ANTHROPIC_BASE_URL=<printed URL>.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

func main() {
	file := flag.String("file", "", "absolute path of the file to edit")
	old := flag.String("old", "", "text to replace")
	repl := flag.String("new", "", "replacement")
	script := flag.String("script", "", "a JSON file of turns to play in order (instead of -file/-old/-new)")
	flag.Parse()
	s := fakeapi.New()
	defer s.Close()
	switch {
	case *script != "":
		turns, err := readScript(*script)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakemodel:", err)
			os.Exit(2)
		}
		s.Push(turns...)
	case *file != "" && *old != "":
		for i := 0; i < 20; i++ {
			s.Push(
				fakeapi.Tool("Read", map[string]any{"file_path": *file}),
				fakeapi.Tool("Edit", map[string]any{"file_path": *file, "old_string": *old, "new_string": *repl}),
				fakeapi.Text("Done."),
			)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
}

// readScript reads a JSON list of turns; ${PWD} in any string becomes the working directory, so
// one script serves any checkout.
func readScript(path string) ([]fakeapi.Turn, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	wd, _ := os.Getwd()
	b = []byte(strings.ReplaceAll(string(b), "${PWD}", wd))
	var turns []fakeapi.Turn
	if err := json.Unmarshal(b, &turns); err != nil {
		return nil, fmt.Errorf("%s: %w (want a list of {\"text\": ..., \"tools\": [{\"name\": ..., \"input\": {...}}]})", path, err)
	}
	if len(turns) == 0 {
		return nil, fmt.Errorf("%s: no turns", path)
	}
	for i, t := range turns {
		for _, tu := range t.Tools {
			if tu.Name == "" {
				return nil, fmt.Errorf("%s: turn %d: a tool without a name", path, i+1)
			}
		}
	}
	return turns, nil
}
