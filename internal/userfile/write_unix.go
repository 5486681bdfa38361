//go:build unix

package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openParent opens root (following links: the user named the folder) and then each of names but
// the last with O_NOFOLLOW, and returns the descriptor of the last one's folder.
func openParent(root string, names []string, path string) (int, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	at := root
	for _, name := range names[:len(names)-1] {
		at = filepath.Join(at, name)
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = classify(fd, name, at, path, err)
			unix.Close(fd)
			return -1, err
		}
		unix.Close(fd)
		fd = next
	}
	return fd, nil
}

// classify turns a failed open of name in dir into a clear error.
func classify(dir int, name, at, path string, err error) error {
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return linkError(path, at)
		case unix.S_IFDIR:
		default:
			return fmt.Errorf("%s: %s is not a folder: %w", path, at, ErrSpecial)
		}
	}
	return &fs.PathError{Op: "open", Path: at, Err: err}
}

// check refuses a last component that is a link or not a regular file; exists is false when
// there is none.
func check(dir int, name, path string) (exists bool, err error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return false, nil
		}
		return false, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return true, nil
	case unix.S_IFLNK:
		return true, linkError(path, path)
	case unix.S_IFDIR:
		return true, fmt.Errorf("%s is a folder: %w", path, ErrSpecial)
	}
	return true, fmt.Errorf("%s is not a regular file: %w", path, ErrSpecial)
}

func writeIn(root string, names []string, path string, data []byte, perm fs.FileMode) error {
	dir, err := openParent(root, names, path)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	name := names[len(names)-1]
	if _, err := check(dir, name, path); err != nil {
		return err
	}
	var tmp string
	var fd int
	for range 10 {
		tmp = tempName()
		fd, err = unix.Openat(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	if err != nil {
		return &fs.PathError{Op: "create a temporary file beside", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(filepath.Dir(path), tmp))
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm.Perm())
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// renameat replaces whatever name is now, link or file, without following it.
		err = unix.Renameat(dir, tmp, dir, name)
	}
	if err != nil {
		unix.Unlinkat(dir, tmp, 0)
		return fmt.Errorf("%s: not written (the file is as it was): %w", path, err)
	}
	unix.Fsync(dir) // the rename durable; best effort
	return nil
}

func removeIn(root string, names []string, path string) error {
	dir, err := openParent(root, names, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // its folder is gone, and the file with it
	}
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	name := names[len(names)-1]
	if exists, err := check(dir, name, path); err != nil || !exists {
		return err
	}
	if err := unix.Unlinkat(dir, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}
