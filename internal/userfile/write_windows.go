//go:build windows

package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// On Windows the walk is os.Root's (which refuses any escape from the folder) with each component
// checked by Lstat first: a link swapped in between the check and the open can only lead to
// another place inside the folder.

func openParent(root string, names []string, path string) (*os.Root, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	at := root
	for _, name := range names[:len(names)-1] {
		at = filepath.Join(at, name)
		fi, err := r.Lstat(name)
		if err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			err = linkError(path, at)
		} else if err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s: %s is not a folder: %w", path, at, ErrSpecial)
		}
		var next *os.Root
		if err == nil {
			next, err = r.OpenRoot(name)
		}
		r.Close()
		if err != nil {
			return nil, err
		}
		r = next
	}
	return r, nil
}

func check(r *os.Root, name, path string) (exists bool, err error) {
	fi, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	switch {
	case err != nil:
		return false, err
	case fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return true, linkError(path, path)
	case !fi.Mode().IsRegular():
		return true, fmt.Errorf("%s is not a regular file: %w", path, ErrSpecial)
	}
	return true, nil
}

func writeIn(root string, names []string, path string, data []byte, perm fs.FileMode) error {
	r, err := openParent(root, names, path)
	if err != nil {
		return err
	}
	defer r.Close()
	name := names[len(names)-1]
	if _, err := check(r, name, path); err != nil {
		return err
	}
	var tmp string
	var f *os.File
	for range 10 {
		tmp = tempName()
		f, err = r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.Perm())
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, name)
	}
	if err != nil {
		r.Remove(tmp)
		return fmt.Errorf("%s: not written (the file is as it was): %w", path, err)
	}
	return nil
}

func removeIn(root string, names []string, path string) error {
	r, err := openParent(root, names, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	name := names[len(names)-1]
	if exists, err := check(r, name, path); err != nil || !exists {
		return err
	}
	if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
