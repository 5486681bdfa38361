// Command targz writes to stdout the release archive internal/dist packs for the executable
// named by its argument. harness.ReleaseServer runs it with `go run`: built without -race, it
// packs the 22 MB -race bridge in 2.7 s of CPU, against 30 s inside a -race test binary.
package main

import (
	"fmt"
	"os"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/dist"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: targz EXECUTABLE > ARCHIVE.tar.gz")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err == nil {
		data, err = dist.TarGz("claude-ide-bridge", data)
	}
	if err == nil {
		_, err = os.Stdout.Write(data)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "targz:", err)
		os.Exit(1)
	}
}
