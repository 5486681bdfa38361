package main

import (
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// bin is this command, built once: serve runs until a signal, so tests run it as a child.
var bin string

func TestMain(m *testing.M) { testbin.Main(m, &bin) }
