// Package pathmap translates file paths between the editor's machine (LOCAL) and the machine
// where the bridge and the Claude CLI run (REMOTE): a dev container, a host reached over SSH, WSL.
//
// A Map is a list of LOCAL=REMOTE prefixes. A path is translated by the longest prefix that
// holds it, at a separator boundary (/a/b holds /a/b/c, not /a/bc). A path no prefix holds is
// refused with *UnmappedError, never passed through: a path that means one file on the editor's
// machine names another (or none) on the other side.
//
// Both POSIX paths (/srv/app) and Windows paths (C:\src\app, C:/src/app, \\server\share\dir)
// are understood on either side. Windows drive letters and UNC server and share names match
// case-insensitively (the rest of a path matches exactly); the output takes the separators and
// spelling of the prefix it is translated to. Paths are cleaned first (. and .. removed
// lexically), so /srv/app/../etc is /srv/etc and does not escape the /srv/app mapping.
//
// A `file://` URI (file:///srv/a%20b.go, file:///C:/src/x.go, file:///c%3A/src/x.go,
// file://server/share/x) is translated too, and comes out as a URI of the other side, percent-
// encoded (spaces, non-ASCII, '#', '%').
//
// A Map is immutable after Parse and safe for concurrent use.
package pathmap

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
)

// Map translates paths between LOCAL and REMOTE. The zero Map (and nil) maps nothing: use Empty
// to decide whether to translate at all.
type Map struct {
	toRemote []rule // longest LOCAL key first
	toLocal  []rule // the same rules with the sides swapped, longest REMOTE key first
}

// rule translates paths under from into paths under to.
type rule struct {
	from, to prefix
}

// prefix is one side of a mapping.
type prefix struct {
	windows bool
	// key is the comparison form: forward slashes, cleaned; for Windows the volume folded
	// ("C:", "//server/share") followed by the rest ("/" for the root of the volume).
	key string
	// vol and rest are the output form: vol as written (drive letter case kept, UNC with the
	// original spelling), rest cleaned with forward slashes, starting with "/".
	vol, rest string
	spec      string // as the user wrote it, for messages
}

// Parse reads mappings written LOCAL=REMOTE (split at the first '='). Each side must be an
// absolute POSIX or Windows path. Two mappings of the same LOCAL or of the same REMOTE prefix
// are an error: the other direction would be ambiguous.
func Parse(specs []string) (*Map, error) {
	m := &Map{}
	seenL, seenR := map[string]string{}, map[string]string{}
	for _, s := range specs {
		l, r, ok := strings.Cut(s, "=")
		if !ok || l == "" || r == "" {
			return nil, fmt.Errorf("path map %q: want LOCAL=REMOTE", s)
		}
		lp, err := parsePrefix(l)
		if err != nil {
			return nil, fmt.Errorf("path map %q: LOCAL %w", s, err)
		}
		rp, err := parsePrefix(r)
		if err != nil {
			return nil, fmt.Errorf("path map %q: REMOTE %w", s, err)
		}
		if prev, dup := seenL[lp.key]; dup {
			return nil, fmt.Errorf("path map %q: LOCAL %q is mapped twice (also by %q)", s, l, prev)
		}
		if prev, dup := seenR[rp.key]; dup {
			return nil, fmt.Errorf("path map %q: REMOTE %q is mapped twice (also by %q)", s, r, prev)
		}
		seenL[lp.key], seenR[rp.key] = s, s
		m.toRemote = append(m.toRemote, rule{from: lp, to: rp})
		m.toLocal = append(m.toLocal, rule{from: rp, to: lp})
	}
	byLen := func(rs []rule) {
		sort.SliceStable(rs, func(i, j int) bool { return len(rs[i].from.key) > len(rs[j].from.key) })
	}
	byLen(m.toRemote)
	byLen(m.toLocal)
	return m, nil
}

// Empty reports whether m maps nothing (then no translation is wanted at all).
func (m *Map) Empty() bool { return m == nil || len(m.toRemote) == 0 }

// Direction names which way a path crosses.
type Direction int

const (
	ToRemote Direction = iota // from the editor to the bridge and Claude
	ToLocal                   // from Claude and the bridge to the editor
)

func (d Direction) from() string {
	if d == ToRemote {
		return "LOCAL"
	}
	return "REMOTE"
}

// UnmappedError is a path that no mapping holds (or that is not absolute).
type UnmappedError struct {
	Path string
	Dir  Direction
	// Prefixes are the prefixes of the side the path came from, for the message.
	Prefixes []string
}

func (e *UnmappedError) Error() string {
	return fmt.Sprintf("%q is outside the path map (%s prefixes: %s)", e.Path, e.Dir.from(), strings.Join(e.Prefixes, ", "))
}

// ToRemote translates a path (or file:// URI) as the editor knows it into the bridge's.
func (m *Map) ToRemote(p string) (string, error) { return m.translate(p, ToRemote) }

// ToLocal translates a path (or file:// URI) as the bridge knows it into the editor's.
func (m *Map) ToLocal(p string) (string, error) { return m.translate(p, ToLocal) }

// Translate translates p in direction d.
func (m *Map) Translate(p string, d Direction) (string, error) { return m.translate(p, d) }

func (m *Map) translate(p string, d Direction) (string, error) {
	if m == nil {
		return "", &UnmappedError{Path: p, Dir: d}
	}
	rules := m.toRemote
	if d == ToLocal {
		rules = m.toLocal
	}
	in, isURI := p, false
	if hasFileScheme(p) {
		fp, err := fromURI(p)
		if err != nil {
			return "", fmt.Errorf("%q: %w", p, err)
		}
		in, isURI = fp, true
	}
	for _, r := range rules {
		k, err := key(in, r.from.windows)
		if err != nil {
			continue
		}
		suffix, ok := under(k, r.from)
		if !ok {
			continue
		}
		if err := segments(suffix, r.from.windows, r.to.windows); err != nil {
			return "", &UnsafeError{Path: p, Dir: d, Reason: err.Error()}
		}
		out := r.to.join(suffix)
		if isURI {
			return toURI(out, r.to.windows), nil
		}
		return out, nil
	}
	e := &UnmappedError{Path: p, Dir: d}
	for _, r := range rules {
		e.Prefixes = append(e.Prefixes, r.from.spec)
	}
	return "", e
}

// UnsafeError is a path under a mapping with a name that is a plain name on the side it comes
// from but not on the other: with a POSIX REMOTE and a Windows LOCAL, /srv/app/..\..\x is one
// name (`..\..\x`) on the POSIX side and two steps up on Windows, so it would leave LOCAL.
type UnsafeError struct {
	Path   string
	Dir    Direction
	Reason string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%q cannot cross the path map: %s", e.Path, e.Reason)
}

// segments checks each name of suffix ("" or "/a/b", split at '/', the separator of both key
// forms) against the rules of both sides: no NUL anywhere; a name going to Windows holds no '\'
// (a separator there), no ':' (a drive or an alternate data stream), no control character or
// one of <>"|?* (not allowed in Windows names), and does not end in '.' or ' ' (Windows drops
// them, so ".. " is ".." there); a name coming from Windows that ends in '.' or ' ' is refused
// too, since Windows reads it differently from the lexical cleaning done here.
func segments(suffix string, fromWindows, toWindows bool) error {
	if suffix == "" {
		return nil
	}
	for _, seg := range strings.Split(suffix[1:], "/") {
		switch {
		case strings.IndexByte(seg, 0) >= 0:
			return fmt.Errorf("the name %q holds a NUL", seg)
		case (toWindows || fromWindows) && (strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ")):
			return fmt.Errorf("the name %q ends in a dot or a space, which Windows drops", seg)
		case toWindows && strings.ContainsAny(seg, "\\:<>\"|?*"):
			return fmt.Errorf("the name %q holds a character that is a separator or not allowed on Windows", seg)
		case toWindows && strings.IndexFunc(seg, func(r rune) bool { return r < 0x20 }) >= 0:
			return fmt.Errorf("the name %q holds a control character, not allowed on Windows", seg)
		}
	}
	return nil
}

// under returns the part of key k below prefix f ("" or "/x/y"), if f holds k.
func under(k string, f prefix) (string, bool) {
	if k == f.key {
		return "", true
	}
	root := strings.TrimSuffix(f.key, "/") // the root of a file system or volume ends in "/"
	if strings.HasPrefix(k, root+"/") {
		return k[len(root):], true
	}
	return "", false
}

// join puts a suffix ("" or "/x/y", forward slashes) under the prefix, in its spelling.
func (f prefix) join(suffix string) string {
	rest := f.rest
	if suffix != "" && rest == "/" {
		rest = ""
	}
	rest += suffix
	if !f.windows {
		return rest
	}
	return strings.ReplaceAll(f.vol+rest, "/", `\`)
}

func parsePrefix(s string) (prefix, error) {
	if hasFileScheme(s) {
		fp, err := fromURI(s)
		if err != nil {
			return prefix{}, err
		}
		s = fp
	}
	if vol, rest, ok := splitWindows(s); ok {
		return prefix{windows: true, key: foldVol(vol) + rest, vol: vol, rest: rest, spec: s}, nil
	}
	if strings.HasPrefix(s, "/") {
		c := path.Clean(s)
		return prefix{key: c, rest: c, spec: s}, nil
	}
	return prefix{}, fmt.Errorf("%q is not an absolute path", s)
}

// key is the comparison form of p in the given style, or an error when p is not an absolute
// path of that style.
func key(p string, windows bool) (string, error) {
	if windows {
		vol, rest, ok := splitWindows(p)
		if !ok {
			return "", fmt.Errorf("%q is not an absolute Windows path", p)
		}
		return foldVol(vol) + rest, nil
	}
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q is not an absolute path", p)
	}
	return path.Clean(p), nil
}

// splitWindows splits an absolute Windows path into its volume ("C:" or `\\server\share` as
// written, separators made '/') and its cleaned rest ("/" or "/a/b").
func splitWindows(p string) (vol, rest string, ok bool) {
	s := strings.ReplaceAll(p, `\`, "/")
	switch {
	case len(s) >= 2 && isLetter(s[0]) && s[1] == ':' && (len(s) == 2 || s[2] == '/'):
		vol, s = s[:2], s[2:]
	case strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "///"):
		parts := strings.SplitN(s[2:], "/", 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" || parts[0] == "?" || parts[0] == "." {
			return "", "", false
		}
		vol = "//" + parts[0] + "/" + parts[1]
		s = ""
		if len(parts) == 3 {
			s = "/" + parts[2]
		}
	default:
		return "", "", false
	}
	return vol, path.Clean("/" + s), true
}

// foldVol is the comparison form of a volume: drive letters and UNC names are case-insensitive.
func foldVol(vol string) string {
	if strings.HasPrefix(vol, "//") {
		return strings.ToLower(vol)
	}
	return strings.ToUpper(vol)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func hasFileScheme(s string) bool { return len(s) >= 5 && strings.EqualFold(s[:5], "file:") }

// fromURI turns a file URI into a path: file:///srv/x → /srv/x; file:///C:/x and file:///c%3A/x
// → C:/x; file://server/share/x → //server/share/x (a UNC path).
func fromURI(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("not a file URI: %v", err)
	}
	if u.Opaque != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("not a plain file URI")
	}
	p := u.Path
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "//" + u.Host + p, nil
	}
	if len(p) >= 3 && p[0] == '/' && isLetter(p[1]) && p[2] == ':' {
		return p[1:], nil
	}
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("a file URI needs an absolute path")
	}
	return p, nil
}

// toURI makes a file URI of a path in the given style.
func toURI(p string, windows bool) string {
	if !windows {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(s, "//") { // UNC: the server is the URI's host
		host, rest, _ := strings.Cut(s[2:], "/")
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + rest}).String()
	}
	return (&url.URL{Scheme: "file", Path: "/" + s}).String()
}
