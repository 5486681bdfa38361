package fakeagents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// QuietEnv is the environment every agent CLI under test gets beside its own: no browser, no
// container questions, and loopback (the bridge, the fake API) not proxied.
var QuietEnv = []string{"REMOTE_CONTAINERS=true", "NO_BROWSER=1", "no_proxy=127.0.0.1,localhost", "NO_PROXY=127.0.0.1,localhost"}

// GeminiHome writes the Gemini CLI's settings into home/.gemini for the fake Gemini API s (an
// API key, no update, telemetry or folder trust, the IDE integration on and its nudge seen) and
// returns the CLI's environment for them.
func (s *Server) GeminiHome(t testing.TB, home string) []string {
	t.Helper()
	writeJSON(t, filepath.Join(home, ".gemini", "settings.json"), map[string]any{
		"general":   map[string]any{"enableAutoUpdate": false},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}, "folderTrust": map[string]any{"enabled": false}},
		"telemetry": map[string]any{"enabled": false}, "model": map[string]any{"name": "gemini-2.5-flash"},
		"ide": map[string]any{"enabled": true, "hasSeenNudge": true}})
	writeJSON(t, filepath.Join(home, ".gemini", "state.json"), map[string]any{"terminalSetupPromptShown": true})
	return []string{"GEMINI_CLI_HOME=" + home, "GEMINI_API_KEY=fake", "GOOGLE_GEMINI_BASE_URL=" + s.URL}
}

// QwenHome writes Qwen Code's settings into qhome ($QWEN_HOME) for the fake OpenAI API s (auth
// by an OpenAI key, the fake model, the IDE integration on, no update check: that runs `npm
// view`, one more Node process and a network attempt) and returns the CLI's environment for them.
// QWEN_CODE_NO_RELAUNCH: otherwise the CLI starts a second copy of itself for a bigger heap and
// loads its bundle again (0.24.4: 5.0-6.5 s of CPU to its prompt instead of 6.9-8.2 s).
func (s *Server) QwenHome(t testing.TB, qhome string) []string {
	t.Helper()
	writeJSON(t, filepath.Join(qhome, "settings.json"), map[string]any{
		"general":  map[string]any{"enableAutoUpdate": false},
		"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}, "folderTrust": map[string]any{"enabled": false}},
		"model":    map[string]any{"name": "fake-model"}, "ide": map[string]any{"enabled": true, "hasSeenNudge": true}})
	return []string{"QWEN_HOME=" + qhome, "OPENAI_BASE_URL=" + s.URL + "/v1", "OPENAI_API_KEY=fake", "OPENAI_MODEL=fake-model",
		"QWEN_CODE_NO_RELAUNCH=true"}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Start starts the fake model API of agent ("gemini": Gemini's API; "qwen": an OpenAI one for
// Qwen Code), closed when the test ends, and returns it with the function that writes the
// agent's settings under a home and returns the agent's environment (GeminiHome, QwenHome).
func Start(t testing.TB, agent string) (*Server, func(home string) []string) {
	t.Helper()
	switch agent {
	case "gemini":
		s := Gemini()
		t.Cleanup(s.Close)
		return s, func(home string) []string { return s.GeminiHome(t, home) }
	case "qwen":
		s := OpenAI()
		t.Cleanup(s.Close)
		return s, func(home string) []string { return s.QwenHome(t, home) }
	}
	t.Fatalf("no fake API for agent %q", agent)
	return nil, nil
}
