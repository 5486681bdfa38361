package main

import (
	"context"
	"errors"
	"io"
)

func cmdProbe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("probe: not built yet")
}
