// Package child gives the bench programs' children (the bridge, an echo, gopls) their pipes.
package child

import (
	"io"
	"os/exec"
)

// Pipes returns pipes to cmd's stdin and from its stdout, for a cmd not yet started.
func Pipes(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	return in, out, nil
}
