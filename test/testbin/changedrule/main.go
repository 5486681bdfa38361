// Command changedrule builds claude-ide-bridge with its claudeCommand rule changed
// (testbin.BuildChangedRule) to the path given: for the Nova suite, which runs under node.
package main

import (
	"fmt"
	"os"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: changedrule OUT")
		os.Exit(2)
	}
	if err := testbin.BuildChangedRule(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
