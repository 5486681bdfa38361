module github.com/claude-ide-bridge/claude-ide-bridge

go 1.26.8

require (
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/coder/websocket v1.8.15
	github.com/creack/pty v1.1.24
	go.uber.org/goleak v1.3.0
	golang.org/x/term v0.48.0
)

require golang.org/x/sys v0.50.0 // indirect
