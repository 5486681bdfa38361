package lsp

import (
	"context"
	"errors"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
)

// ToolSource is m as the model tools' modeltools.Source. A file whose extension has no
// configured server is a *modeltools.NoServerError naming the flag that would add one;
// positions are UTF-16 both ways (the Manager offers servers no other encoding).
func (m *Manager) ToolSource() modeltools.Source {
	return modeltools.SourceFunc(func(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
		if !m.Handles(path) {
			return modeltools.Answer{}, &modeltools.NoServerError{Source: "the bridge", Reason: noServer(path).Error()}
		}
		err := m.Request(ctx, path, method, params, result)
		if errors.Is(err, ErrUntrusted) {
			return modeltools.Answer{}, &modeltools.NoServerError{Source: "the bridge", Reason: "language servers are off until this workspace is trusted (the user runs: claude-ide-bridge trust " + m.Root() + ")"}
		}
		return modeltools.Answer{Encoding: "utf-16"}, err
	})
}
