// Package trust decides whether the bridge may run what a workspace folder chooses.
//
// A cloned repository is an attacker (docs/security.md): a language server started in it reads
// its toolchain files (rust-toolchain.toml's path), its node_modules (tsserver.js) and its build
// scripts, and so runs the repository's code. Nothing of the kind starts until the user trusts
// the folder by an explicit act (`claude-ide-bridge trust DIR`, serve's prompt, :ClaudeCodeTrust),
// as VS Code's Restricted Mode and Neovim's vim.secure do.
//
// The store is one small file per trusted folder, 0600, in a 0700 directory of the user's
// config directory (Dir). A folder is trusted when it, or a folder above it, was trusted;
// paths are compared with their symlinks resolved. One file per folder means that two bridges
// trusting at once never rewrite each other's entries.
//
// Trust never extends to what another user owns or can write. An entry is bound to its
// folder's owner and identity (device and inode), so a folder deleted and made again, by another
// user in a shared /tmp say, is not trusted. And servers do not start while the workspace or a
// folder above it is another user's or writable by one (Exposed), unless the user accepted those
// very folders when trusting (Trust's accept, `trust --shared`, serve's question naming them).
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

// Store is a trust store in one directory.
type Store struct{ dir string }

// Entry is one folder trusted explicitly.
type Entry struct {
	Path    string    `json:"path"`
	Trusted time.Time `json:"trusted"`
	// Folder is the folder's owner and identity when trusted (nil off unix, and in entries of
	// versions before it, which trust nothing on unix).
	Folder *Identity `json:"folder,omitempty"`
	// Shared are the folders other users could write that the user accepted (Exposed, shown
	// to them); each counts while its owner, identity and mode stay as recorded.
	Shared []Exposure `json:"shared,omitempty"`
}

// Dir is the default store's directory: <os.UserConfigDir()>/claude-ide-bridge/trusted
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on macOS,
// %AppData% on Windows).
func Dir() (string, error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("trust: no config directory: %w", err)
	}
	return filepath.Join(cfg, "claude-ide-bridge", "trusted"), nil
}

// Open returns the store in dir; "" is Dir(). Nothing is created until Trust.
func Open(dir string) (*Store, error) {
	if dir == "" {
		var err error
		if dir, err = Dir(); err != nil {
			return nil, err
		}
	}
	return &Store{dir: dir}, nil
}

// Path is the store's directory.
func (s *Store) Path() string { return s.dir }

// Resolve is folder absolute and with its symlinks resolved; the folder must exist.
func Resolve(folder string) (string, error) {
	real, err := discovery.Resolve(folder)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", folder)
	}
	return real, nil
}

// entryName is the file holding a folder's entry: a hash of its resolved path, so that any
// path maps to one plain file name.
func entryName(resolved string) string {
	sum := sha256.Sum256([]byte(resolved))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// Trust records folder (resolved) as trusted, bound to its owner and identity, and returns the
// resolved path. accept are the folders other users can write (Exposed) that the user was shown
// and accepted; Check refuses any other.
func (s *Store) Trust(folder string, accept ...Exposure) (string, error) {
	real, err := Resolve(folder)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	e := Entry{Path: real, Trusted: time.Now().UTC().Truncate(time.Second), Shared: accept}
	if fi, err := os.Stat(real); err != nil {
		return "", fmt.Errorf("trust: %w", err)
	} else if id, ok := identityOf(fi); ok {
		e.Folder = &id
	}
	if err := s.ensureDir(); err != nil {
		return "", err
	}
	b, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("trust: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return "", fmt.Errorf("trust: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	// The rename replaces whatever is at the entry's name (even a symlink) rather than writing
	// through it.
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, entryName(real))); err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return real, nil
}

// Revoke removes folder's own entry and returns its resolved path. A folder that is trusted
// only through a folder above it keeps that trust: the error says which folder to revoke.
func (s *Store) Revoke(folder string) (string, error) {
	real, err := Resolve(folder)
	if err != nil {
		// A folder that is gone can still be revoked by the path it was trusted as.
		if real, err = filepath.Abs(folder); err != nil {
			return "", err
		}
	}
	err = os.Remove(filepath.Join(s.dir, entryName(real)))
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("trust: %w", err)
	}
	if by, ok := s.Trusted(real); ok {
		return "", fmt.Errorf("%s was not trusted itself: it is trusted because %s is; revoke that", real, by)
	}
	return "", fmt.Errorf("%s is not trusted", real)
}

// Trusted reports whether an entry trusts folder and, if so, the trusted folder (it or one
// above it). An unreadable store, or one another user could write, trusts nothing; nor does an
// entry whose folder is no longer the one trusted. Whether servers may start is Check.
func (s *Store) Trusted(folder string) (by string, ok bool) {
	by, _, _ = s.find(resolved(folder))
	return by, by != ""
}

// Check reports whether language servers may start in folder: an entry trusts it (Trusted) and
// every folder Exposed lists was accepted by that entry. by is the trusted folder; the error, a
// *Refusal, says why not and what the user runs.
func (s *Store) Check(folder string) (by string, err error) {
	real := resolved(folder)
	by, e, changed := s.find(real)
	exposed, err := Exposed(real)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	r := &Refusal{Folder: real, By: by, Changed: changed}
	for _, x := range exposed {
		if e == nil || !accepted(e.Shared, x) {
			r.Exposed = append(r.Exposed, x)
		}
	}
	if by != "" && len(r.Exposed) == 0 {
		return by, nil
	}
	return by, r
}

func accepted(shared []Exposure, x Exposure) bool {
	for _, a := range shared {
		if x.same(a) {
			return true
		}
	}
	return false
}

// Refusal is Check's answer when servers may not start.
type Refusal struct {
	Folder  string     // the folder asked about, resolved
	By      string     // the trusted folder that trusts it; "" when none does
	Changed []string   // why entries of it or of folders above it no longer count
	Exposed []Exposure // folders other users can write that the trust did not accept
}

func (r *Refusal) Error() string {
	var parts []string
	if r.By == "" {
		s := r.Folder + " is not trusted"
		if len(r.Changed) > 0 {
			s += ": " + strings.Join(r.Changed, "; ")
		}
		parts = append(parts, s)
	}
	if len(r.Exposed) > 0 {
		whys := make([]string, len(r.Exposed))
		for i, x := range r.Exposed {
			whys[i] = x.Why
		}
		parts = append(parts, "language servers search "+r.Folder+" and the folders above it for node_modules and toolchain files (go.work, tsconfig.json, pyrightconfig.json ...), and "+
			strings.Join(whys, "; ")+": what another user puts there would run as you")
	}
	return strings.Join(parts, "; ") + " (" + r.Command() + ")"
}

// Command is what the user runs to trust the folder as it is now.
func (r *Refusal) Command() string {
	if len(r.Exposed) > 0 {
		return "if you accept that: claude-ide-bridge trust --shared " + r.Folder
	}
	return "claude-ide-bridge trust " + r.Folder
}

// resolved is folder absolute with its symlinks resolved when it exists.
func resolved(folder string) string {
	real, err := filepath.Abs(folder)
	if err != nil {
		return folder
	}
	if r, err := filepath.EvalSymlinks(real); err == nil {
		real = r
	}
	return real
}

// find walks from real up to / for the nearest entry whose folder is still the one trusted.
// changed says why entries passed on the way no longer count.
func (s *Store) find(real string) (by string, e *Entry, changed []string) {
	if !filepath.IsAbs(real) || !s.dirSafe() {
		return "", nil, nil
	}
	for p := real; ; p = filepath.Dir(p) {
		if e, ok := s.read(filepath.Join(s.dir, entryName(p))); ok && e.Path == p {
			why := e.changed()
			if why == "" {
				return p, &e, changed
			}
			changed = append(changed, why)
		}
		if filepath.Dir(p) == p {
			return "", nil, changed
		}
	}
}

// changed says why e no longer trusts its folder: the folder there now has another owner or
// identity (it was deleted and made again), or e, written before entries were bound to their
// folder, cannot tell. "" when e still holds.
func (e Entry) changed() string {
	fi, err := os.Stat(e.Path)
	if err != nil {
		return e.Path + " was trusted, but it cannot be looked at now: " + err.Error()
	}
	now, ok := identityOf(fi)
	if !ok {
		return ""
	}
	if e.Folder == nil {
		return e.Path + " was trusted by an older claude-ide-bridge that did not record which folder it was; trust it again"
	}
	if now != *e.Folder {
		return fmt.Sprintf("%s was trusted on %s, but the folder there now is another one (owner uid %d, inode %d; the trusted one: uid %d, inode %d): it was deleted and made again, perhaps by another user",
			e.Path, e.Trusted.Local().Format("2006-01-02 15:04"), now.UID, now.Ino, e.Folder.UID, e.Folder.Ino)
	}
	return ""
}

// List returns the entries, sorted by path.
func (s *Store) List() ([]Entry, error) {
	des, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	if !s.dirSafe() {
		return nil, fmt.Errorf("trust: %s is not a directory of yours that only you can write: it is ignored", s.dir)
	}
	var out []Entry
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		if e, ok := s.read(filepath.Join(s.dir, de.Name())); ok && entryName(e.Path) == de.Name() {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// read reads one entry: a regular file of ours that no one else can write, a few hundred bytes.
func (s *Store) read(name string) (Entry, bool) {
	f, err := os.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return Entry{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !ownedSafe(fi) {
		return Entry{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return Entry{}, false
	}
	var e Entry
	if json.Unmarshal(b, &e) != nil || e.Path == "" || !filepath.IsAbs(e.Path) {
		return Entry{}, false
	}
	return e, true
}

// ensureDir creates the store's directory 0700 (its parent too) or checks an existing one:
// not a symlink, ours, and tightened to 0700 if it was looser.
func (s *Store) ensureDir() error {
	if _, err := discovery.OwnDir(s.dir, discovery.DirRule{Create: true, Tighten: true}); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// dirSafe reports whether entries in the directory can be believed: it is a real directory of
// ours that no one else can write.
func (s *Store) dirSafe() bool {
	_, err := discovery.OwnDir(s.dir, discovery.DirRule{Refuse: 0o022})
	return err == nil
}

// ownedSafe reports whether fi belongs to this user and no group or other user can write it
// (off unix, where no owner is read, true).
func ownedSafe(fi fs.FileInfo) bool {
	uid, ok := discovery.FileOwner(fi)
	return !ok || (uid == os.Geteuid() && fi.Mode().Perm()&0o022 == 0)
}
