package trust

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

// Identity is a folder's owner, device and inode (unix). A folder deleted and made again at the
// same path, by anyone, has another identity, and one made by another user another owner.
type Identity struct {
	UID uint32 `json:"uid"`
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// Exposure is a folder, the workspace or one above it, that a user other than this one and
// root owns or can write. Language servers search these folders (typescript-language-server
// takes the first node_modules/typescript/lib up to /, gopls the nearest go.work and go.mod,
// pyright its pyrightconfig.json, rust-analyzer and rustup their toolchain files), so what that
// user puts there runs as this one.
type Exposure struct {
	Path string `json:"path"`
	Identity
	Mode uint32 `json:"mode"` // permission and sticky bits, as chmod writes them
	Why  string `json:"-"`    // e.g. "/tmp can be written by other users (mode 1777: ...)"
}

func (x Exposure) String() string { return x.Why }

// same reports whether x is the folder a was, with the same owner and mode.
func (x Exposure) same(a Exposure) bool {
	return x.Path == a.Path && x.Identity == a.Identity && x.Mode == a.Mode
}

// Exposed lists folder (resolved) and every folder above it, up to /, that a user other than
// this one and root owns or can write: a sticky folder such as /tmp counts, since any user can
// create /tmp/node_modules in it. Off unix it lists nothing (folder ACLs are not read). The
// rule is the one Executable applies to a server's program, without the sticky exemption.
func Exposed(folder string) ([]Exposure, error) {
	real, err := Resolve(folder)
	if err != nil {
		return nil, err
	}
	var out []Exposure
	for d := real; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return nil, err
		}
		if why := othersCanWrite(d, fi, false); why != nil {
			id, _ := identityOf(fi)
			out = append(out, Exposure{Path: d, Identity: id, Mode: modeBits(fi), Why: why.Error()})
		}
		if filepath.Dir(d) == d {
			return out, nil
		}
	}
}

// othersCanWrite returns why a user other than this one and root could change what is at p: it
// is theirs, or group or others may write it. stickyOK exempts a sticky folder (others may only
// replace their own entries in it), which is safe above a program of ours; it is not safe for a
// folder a language server searches, where a new entry of theirs (/tmp/node_modules) is the
// attack.
func othersCanWrite(p string, fi fs.FileInfo, stickyOK bool) error {
	uid, ok := discovery.FileOwner(fi)
	if !ok { // off unix: folder ACLs are not read (docs/security.md)
		return nil
	}
	if uid != 0 && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, another user", p, uid)
	}
	if fi.Mode().Perm()&0o022 == 0 {
		return nil
	}
	sticky := fi.IsDir() && fi.Mode()&fs.ModeSticky != 0
	switch {
	case sticky && stickyOK:
		return nil
	case sticky:
		return fmt.Errorf("%s can be written by other users (mode %04o: sticky, but any user can create new files and folders in it)", p, modeBits(fi))
	}
	return fmt.Errorf("%s can be written by other users (mode %04o)", p, modeBits(fi))
}

// modeBits is fi's permission and sticky bits as chmod writes them (1777 for /tmp).
func modeBits(fi fs.FileInfo) uint32 {
	m := uint32(fi.Mode().Perm())
	if fi.Mode()&fs.ModeSticky != 0 {
		m |= 0o1000
	}
	return m
}
