// Package soak plays a day of use against a real bridge process (issue 35 item 7): turns of
// Claude with hooks, Edit/Write in acceptEdits (getDiagnostics before and after the write),
// openDiff accepted in the editor, Bash-like changes on disk, reverts with `review --revert`,
// selections and mentions, Claude connections renewed (a restarted CLI, a dropped connection)
// and editors leaving and attaching; and the faults of real use: a Claude process killed with
// SIGKILL while its openDiff is pending, the editor killed during a diff, the disk full during
// an accept, a revert and a lock write. It measures the bridge's memory the kernel cannot drop,
// its open fds and goroutines, and checks that nothing is left behind.
//
//	go test ./bench/soak/                      (the smoke: 60 turns of each test)
//	SOAK_TURNS=1000 nice go test -count=1 -timeout 2h -v -run 'TestSoak$' ./bench/soak/
//	SOAK_TURNS=1000 nice go test -count=1 -timeout 2h -v -run 'TestSoakAutoAccept$' ./bench/soak/
//
// TestSoakAutoAccept is the review's run against `serve --auto accept`, without faults.
// Linux only (it reads /proc); docs/performance.md ("Soak") has the figures.
//
// The Claude side is a Go client speaking the CLI's protocol (internal/probe), the Claude killed
// is `claude-ide-bridge probe --diff`, the editor a scripted one on `serve --stdio`. The bridge
// is built with -tags soakstats (cmd/claude-ide-bridge/soakstats.go: its goroutine count on
// SIGUSR1); SOAK_BIN runs a binary built so elsewhere (another commit). Disk-full faults need
// root (tmpfs mounts) and are skipped, loudly, without it.
package soak
