package permmode

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// env is a fresh home, config dir and project with no settings at all.
func env(t *testing.T) Env {
	d := t.TempDir()
	e := Env{Cwd: filepath.Join(d, "proj"), Home: filepath.Join(d, "home"), Managed: filepath.Join(d, "managed.json")}
	os.MkdirAll(filepath.Join(e.Cwd, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(e.Home, ".claude"), 0o755)
	return e
}

func write(t *testing.T, path, mode string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(`{"permissions":{"allow":[],"defaultMode":"`+mode+`"},"env":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

var addDefault = []string{"--permission-mode", "default"}

// Facts: "A fresh config starts in auto mode ... openDiff is not called". Nothing chosen: the
// bridge adds --permission-mode default.
func TestNothingChosenAddsDefault(t *testing.T) {
	e := env(t)
	d := Decide([]string{"--resume", "--mcp-config", "x.json"}, e)
	if !reflect.DeepEqual(d.Add, addDefault) || d.Mode != Default || d.SkipsDiffs || d.Warning() != "" {
		t.Errorf("Decide = %+v, want --permission-mode default added", d)
	}
	// A settings file without defaultMode chooses nothing either.
	os.WriteFile(filepath.Join(e.Home, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(ls)"]}}`), 0o644)
	if d := Decide(nil, e); !reflect.DeepEqual(d.Add, addDefault) {
		t.Errorf("settings without defaultMode: %+v", d)
	}
}

func TestFlagInArgumentsWins(t *testing.T) {
	e := env(t)
	write(t, filepath.Join(e.Home, ".claude", "settings.json"), "default")
	for _, tc := range []struct {
		args []string
		mode string
		skip bool
	}{
		{[]string{"--permission-mode", "auto"}, Auto, true},
		{[]string{"--permission-mode=acceptEdits"}, AcceptEdits, true},
		{[]string{"-c", "--permission-mode", "plan"}, Plan, false},
		{[]string{"--dangerously-skip-permissions"}, BypassPermissions, true},
		{[]string{"--permission-mode", "default"}, Default, false},
	} {
		d := Decide(tc.args, e)
		if d.Add != nil || d.Mode != tc.mode || d.Source != "arguments" || d.SkipsDiffs != tc.skip {
			t.Errorf("Decide(%q) = %+v, want mode %s from the arguments, nothing added", tc.args, d, tc.mode)
		}
		if tc.skip && !strings.Contains(d.Warning(), "without showing them as diffs") {
			t.Errorf("Decide(%q).Warning() = %q", tc.args, d.Warning())
		}
	}
	// After "--" it is the prompt, not a flag.
	if d := Decide([]string{"--", "--permission-mode", "auto"}, env(t)); !reflect.DeepEqual(d.Add, addDefault) {
		t.Errorf("flag after --: %+v", d)
	}
}

// Each settings file in force can choose; the most specific one wins (managed first, then the
// project's local, the project's, the user's).
func TestSettingsFiles(t *testing.T) {
	t.Run("user", func(t *testing.T) {
		e := env(t)
		p := filepath.Join(e.Home, ".claude", "settings.json")
		write(t, p, "auto")
		d := Decide(nil, e)
		if d.Add != nil || d.Mode != Auto || d.Source != p || !d.SkipsDiffs || !strings.Contains(d.Warning(), p) {
			t.Errorf("Decide = %+v", d)
		}
	})
	t.Run("CLAUDE_CONFIG_DIR replaces ~/.claude", func(t *testing.T) {
		e := env(t)
		write(t, filepath.Join(e.Home, ".claude", "settings.json"), "auto")
		e.ConfigDir = filepath.Join(t.TempDir(), "cfg")
		if d := Decide(nil, e); !reflect.DeepEqual(d.Add, addDefault) {
			t.Errorf("~/.claude read despite CLAUDE_CONFIG_DIR: %+v", d)
		}
		write(t, filepath.Join(e.ConfigDir, "settings.json"), "acceptEdits")
		if d := Decide(nil, e); d.Mode != AcceptEdits || d.Add != nil {
			t.Errorf("CLAUDE_CONFIG_DIR settings: %+v", d)
		}
	})
	t.Run("project over user, local over project, managed over all", func(t *testing.T) {
		e := env(t)
		write(t, filepath.Join(e.Home, ".claude", "settings.json"), "auto")
		write(t, filepath.Join(e.Cwd, ".claude", "settings.json"), "default")
		if d := Decide(nil, e); d.Mode != Default || d.Add != nil || d.Source != filepath.Join(e.Cwd, ".claude", "settings.json") {
			t.Errorf("project: %+v", d)
		}
		write(t, filepath.Join(e.Cwd, ".claude", "settings.local.json"), "dontAsk")
		if d := Decide(nil, e); d.Mode != DontAsk || !d.SkipsDiffs {
			t.Errorf("local: %+v", d)
		}
		write(t, e.Managed, "plan")
		if d := Decide(nil, e); d.Mode != Plan || d.Source != e.Managed {
			t.Errorf("managed: %+v", d)
		}
	})
	t.Run("--settings", func(t *testing.T) {
		e := env(t)
		if d := Decide([]string{"--settings", `{"permissions":{"defaultMode":"auto"}}`}, e); d.Mode != Auto || d.Add != nil {
			t.Errorf("inline --settings: %+v", d)
		}
		write(t, filepath.Join(e.Cwd, "s.json"), "acceptEdits")
		if d := Decide([]string{"--settings=s.json"}, e); d.Mode != AcceptEdits || d.Source != filepath.Join(e.Cwd, "s.json") {
			t.Errorf("--settings=FILE relative to cwd: %+v", d)
		}
	})
	t.Run("unreadable file is reported and skipped", func(t *testing.T) {
		e := env(t)
		os.WriteFile(filepath.Join(e.Cwd, ".claude", "settings.json"), []byte(`{"permissions":`), 0o644)
		write(t, filepath.Join(e.Home, ".claude", "settings.json"), "auto")
		d := Decide(nil, e)
		if d.Mode != Auto || len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "not valid JSON") {
			t.Errorf("Decide = %+v", d)
		}
	})
}

func TestSkipsDiffs(t *testing.T) {
	want := map[string]bool{Default: false, Plan: false, AcceptEdits: true, Auto: true, DontAsk: true, BypassPermissions: true}
	for _, m := range Modes {
		if SkipsDiffs(m) != want[m] {
			t.Errorf("SkipsDiffs(%s) = %v", m, !want[m])
		}
	}
}
