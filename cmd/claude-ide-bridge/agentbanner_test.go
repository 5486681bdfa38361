package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 38: serve's banner prints, for each agent it serves, the line that starts it against
// this bridge (claudecmd, as an editor's claudeCommand), its port variable naming this bridge's
// companion: run by a shell, that line starts the agent (the one on $PATH) with the port of the
// discovery file serve wrote. An agent whose program is not on $PATH gets one line saying what
// to install and no line to run; --agents none one line saying no agent is served.
func TestServeBannerAgentLines(t *testing.T) {
	h := newHome(t)
	// Each agent prints the variable naming its companion's port, as the real CLI reads it.
	vars := map[string]string{"gemini": "GEMINI_CLI_IDE_SERVER_PORT", "qwen": "QWEN_CODE_IDE_SERVER_PORT"}
	for name, env := range vars {
		os.WriteFile(filepath.Join(h.dir, "bin", name), []byte("#!/bin/sh\necho \""+name+" port=$"+env+"\"\n"), 0o755)
	}
	tmp, qwen := t.TempDir(), t.TempDir()
	s := h.serve(t, []string{"TMPDIR=" + tmp, "QWEN_HOME=" + qwen}, "--auto", "reject", "--lsp", "none")
	s.waitFor(t, regexp.MustCompile(`(?s)\nQwen: .*\n\n`))
	out := s.out.String()
	files := map[string]string{
		"gemini": filepath.Join(tmp, "gemini", "ide", "gemini-ide-server-*.json"),
		"qwen":   filepath.Join(qwen, "ide", "*.lock"),
	}
	for name, pattern := range files {
		m, _ := filepath.Glob(pattern)
		if len(m) != 1 {
			t.Fatalf("%s: discovery files %q", name, m)
		}
		var d struct{ Port int }
		if b, err := os.ReadFile(m[0]); err != nil || json.Unmarshal(b, &d) != nil || d.Port == 0 {
			t.Fatalf("%s: discovery file %s: %v", name, m[0], err)
		}
		line := regexp.MustCompile(`(?m)^  (` + vars[name] + `=.*)$`).FindStringSubmatch(out)
		if line == nil {
			t.Fatalf("serve prints no line starting %s:\n%s", name, out)
		}
		if want := vars[name] + "=" + strconv.Itoa(d.Port) + " " + filepath.Join(h.dir, "bin", name); line[1] != want {
			t.Errorf("%s's line is %q, want %q", name, line[1], want)
		}
		// The line as a user pastes it, in a shell that has none of the agents' variables.
		sh := exec.Command("sh", "-c", line[1])
		sh.Env = []string{"PATH=/usr/bin:/bin"}
		if got, err := sh.Output(); err != nil || string(got) != name+" port="+strconv.Itoa(d.Port)+"\n" {
			t.Errorf("%s's line run by sh printed %q (%v), want its companion's port %d", name, got, err, d.Port)
		}
		if !strings.Contains(out, "served at http://127.0.0.1:"+strconv.Itoa(d.Port)+"/mcp ("+m[0]+")") {
			t.Errorf("serve does not say where %s is served:\n%s", name, out)
		}
	}

	// gemini not on $PATH (only claude is), Qwen not set up: one line each, nothing to run.
	h2 := newHome(t)
	s = h2.serve(t, []string{"TMPDIR=" + t.TempDir(), "QWEN_HOME=", "PATH=" + filepath.Join(h2.dir, "bin")}, "--auto", "reject", "--lsp", "none")
	s.waitFor(t, regexp.MustCompile(`(?s)\nQwen: .*\n\n`))
	out = s.out.String()
	if !regexp.MustCompile(`(?m)^Gemini: served at http://127\.0\.0\.1:\d+/mcp, but gemini: not found on \$PATH outside the workspace .*; to install Gemini CLI: npm install -g @google/gemini-cli$`).MatchString(out) {
		t.Errorf("serve without gemini on $PATH does not say what to install:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^Qwen: this bridge does not serve Qwen Code \(.*\$QWEN_HOME.*\)$`).MatchString(out) {
		t.Errorf("serve without Qwen set up does not say so:\n%s", out)
	}
	if strings.Contains(out, "GEMINI_CLI_IDE_SERVER_PORT=") || strings.Contains(out, "QWEN_CODE_IDE_SERVER_PORT=") {
		t.Errorf("serve prints a line that cannot run:\n%s", out)
	}

	// --agents none: one line.
	h3 := newHome(t)
	s = h3.serve(t, []string{"TMPDIR=" + t.TempDir()}, "--auto", "reject", "--lsp", "none", "--agents", "none")
	s.waitFor(t, reText("Gemini and Qwen: not served (--agents none)\n"))
	if out = s.out.String(); strings.Contains(out, "served at") || strings.Count(out, "Gemini") != 1 {
		t.Errorf("--agents none:\n%s", out)
	}

	// A folder on $PATH whose name holds a terminal escape: the lines name it escaped, as
	// `locks` does, never raw (a title-setting OSC here).
	h4 := newHome(t)
	odd := filepath.Join(h4.dir, "bin\x1b]0;pwned\x07")
	os.MkdirAll(odd, 0o755)
	os.WriteFile(filepath.Join(odd, "gemini"), []byte("#!/bin/sh\n"), 0o755)
	s = h4.serve(t, []string{"TMPDIR=" + t.TempDir(), "QWEN_HOME=", "PATH=" + odd + ":" + filepath.Join(h4.dir, "bin")}, "--auto", "reject", "--lsp", "none")
	s.waitFor(t, regexp.MustCompile(`(?s)\nQwen: .*\n\n`))
	if out = s.out.String(); strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `bin\x1b]0;pwned\x07/gemini`) {
		t.Errorf("serve prints a program's path unescaped:\n%q", out)
	}
}
