package stdio_test

import (
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// bin is the claude-ide-bridge binary under test, built once for the package. The tests drive
// `serve --stdio` as a child process, the way an editor plugin does.
var bin string

func TestMain(m *testing.M) { testbin.Main(m, &bin) }
