// Package exclude decides which files' selections, mentions, open-editor entries, diagnostics
// and code-tool answers never reach Claude: the user's exclude globs, with a default that covers the
// usual secrets (issue 28 item 7; anthropics/claude-code #58886: a .env selection resurfacing in
// a new session).
//
// A glob without a slash is matched (doublestar syntax: *, ?, [abc], {a,b}) against the name of
// the file and of each folder it is in, as .gitignore does: ".env" excludes /p/.env,
// "secrets" excludes /p/secrets/db.yml. A glob with a slash is matched against the path
// relative to a workspace folder ("config/*.key", "**/private/**"), or, when it starts with
// "/", against the absolute path.
//
// Set.Excludes is the one place that decides whether a file is excluded, for every channel
// (selections, mentions, open editors, diagnostics, the model's code tools): by the path as
// written and by the file it names once symlinks are resolved, so that a link settings.txt ->
// .env is .env. It reads links, never a file's contents.
package exclude

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// Default is what is excluded when the editor gives no globs: dotenv files, keys and
// certificates, SSH keys, credential files.
var Default = []string{
	".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	".netrc", ".npmrc", ".pypirc", "credentials", "credentials.json", "*.kdbx",
}

// Set is a compiled list of globs. The zero Set excludes nothing. Safe for concurrent use
// (immutable).
type Set struct {
	names []string // globs without a slash, matched against each path segment
	rel   []string // globs with a slash, matched against the workspace-relative path
	abs   []string // globs starting with "/", matched against the absolute path
	globs []string
}

// New compiles globs; nil means Default, an empty list excludes nothing. A malformed glob is an
// error naming it.
func New(globs []string) (*Set, error) {
	if globs == nil {
		globs = Default
	}
	s := &Set{globs: append([]string{}, globs...)}
	for _, g := range globs {
		g = filepath.ToSlash(strings.TrimSpace(g))
		if g == "" {
			continue
		}
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("exclude: bad glob %q", g)
		}
		switch {
		case strings.HasPrefix(g, "/"):
			s.abs = append(s.abs, g)
		case strings.Contains(strings.TrimSuffix(g, "/"), "/"):
			s.rel = append(s.rel, strings.TrimPrefix(g, "./"))
		default:
			s.names = append(s.names, strings.TrimSuffix(g, "/"))
		}
	}
	return s, nil
}

// Globs returns the globs as given.
func (s *Set) Globs() []string {
	if s == nil {
		return []string{}
	}
	return append([]string{}, s.globs...)
}

// Excludes reports whether the file at p (absolute, or relative to the first folder) is
// excluded, judged on p as written and on p with every symlink resolved (userfile.ResolveLinks: as
// far as it exists, dangling links followed). folders are the workspace folders (absolute). Every
// channel that sends a file's text, name or facts to Claude asks this, and nothing else.
func (s *Set) Excludes(p string, folders []string) bool {
	if s == nil || p == "" || len(s.names)+len(s.rel)+len(s.abs) == 0 {
		return false
	}
	if !filepath.IsAbs(p) && len(folders) > 0 {
		p = filepath.Join(folders[0], p)
	}
	if s.match(p, folders) {
		return true
	}
	real := userfile.ResolveLinks(p)
	if real == filepath.Clean(p) {
		return false
	}
	if len(s.rel) > 0 {
		// The link may lead out of a folder as written into it as resolved (or the reverse).
		for _, f := range folders {
			if r := userfile.ResolveLinks(f); r != f {
				folders = append(folders[:len(folders):len(folders)], r)
			}
		}
	}
	return s.match(real, folders)
}

// match is Excludes on the path text alone.
func (s *Set) match(p string, folders []string) bool {
	if s == nil || p == "" {
		return false
	}
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") && len(folders) > 0 {
		p = path.Join(filepath.ToSlash(folders[0]), p)
	}
	p = path.Clean(p)
	if len(s.names) > 0 {
		for _, seg := range strings.Split(p, "/") {
			if seg == "" {
				continue
			}
			for _, g := range s.names {
				if ok, _ := doublestar.Match(g, seg); ok {
					return true
				}
			}
		}
	}
	for _, g := range s.abs {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	if len(s.rel) > 0 {
		for _, f := range folders {
			f = path.Clean(filepath.ToSlash(f))
			rel, ok := strings.CutPrefix(p, strings.TrimSuffix(f, "/")+"/")
			if !ok {
				continue
			}
			for _, g := range s.rel {
				if ok, _ := doublestar.Match(g, rel); ok {
					return true
				}
			}
		}
	}
	return false
}
