//go:build soakstats && unix

package main

// Built only with -tags soakstats (test/soak builds it so): on SIGUSR1 the bridge collects its
// garbage, returns freed memory to the kernel and writes its goroutine count and heap to the
// file named by $CLAUDE_IDE_BRIDGE_SOAKSTATS, so the soak can read what /proc cannot tell. The
// product binary has no such signal or variable.

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
)

func init() {
	path := os.Getenv("CLAUDE_IDE_BRIDGE_SOAKSTATS")
	if path == "" {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for n := 1; ; n++ {
			<-ch
			runtime.GC()
			debug.FreeOSMemory()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			// Then what the runtime holds besides the heap in use, to tell where memory went:
			// all it has mapped and not given back, stacks, span structures, GC metadata.
			line := fmt.Sprintf("%d %d %d %d %d %d %d\n", n, runtime.NumGoroutine(), ms.HeapInuse,
				ms.Sys-ms.HeapReleased, ms.StackInuse, ms.MSpanInuse, ms.GCSys)
			tmp := path + ".tmp"
			if os.WriteFile(tmp, []byte(line), 0o600) == nil {
				os.Rename(tmp, path)
			}
		}
	}()
}
