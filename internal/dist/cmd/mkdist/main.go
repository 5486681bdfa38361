// Command mkdist writes the release archives and SHA256SUMS (make dist):
//
//	go run ./internal/dist/cmd/mkdist -version 0.1.0 -out dist [-targets linux/amd64,...]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/dist"
)

func main() {
	version := flag.String("version", "", "the version to stamp (required)")
	out := flag.String("out", "dist", "output directory")
	targets := flag.String("targets", "", "comma-separated os/arch list (default: all released)")
	flag.Parse()
	o := dist.Options{Version: *version, Root: ".", Out: *out}
	if *targets != "" {
		for _, s := range strings.Split(*targets, ",") {
			osName, arch, ok := strings.Cut(strings.TrimSpace(s), "/")
			if !ok {
				fmt.Fprintf(os.Stderr, "mkdist: bad target %q (want os/arch)\n", s)
				os.Exit(2)
			}
			o.Targets = append(o.Targets, dist.Target{OS: osName, Arch: arch})
		}
	}
	if err := dist.Build(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		os.Exit(1)
	}
}
