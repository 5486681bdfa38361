// Command fakemodel runs the fake Messages API with a one-edit script, to try the bridge and the
// real Claude Code CLI by hand without a model:
//
//	go run ./test/e2e/fakeapi/cmd/fakemodel -file /abs/hello.txt -old hello -new goodbye
//
// Point the CLI at it with ANTHROPIC_BASE_URL=<printed URL>. Every prompt plays: Read the file,
// Edit old→new, then a closing text.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

func main() {
	file := flag.String("file", "", "absolute path of the file to edit")
	old := flag.String("old", "", "text to replace")
	repl := flag.String("new", "", "replacement")
	flag.Parse()
	if *file == "" || *old == "" {
		flag.Usage()
		os.Exit(2)
	}
	s := fakeapi.New()
	defer s.Close()
	for i := 0; i < 20; i++ {
		s.Push(
			fakeapi.Tool("Read", map[string]any{"file_path": *file}),
			fakeapi.Tool("Edit", map[string]any{"file_path": *file, "old_string": *old, "new_string": *repl}),
			fakeapi.Text("Done."),
		)
	}
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
}
