package review

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// maxWatchedDirs bounds the directories watched (inotify watches are a per-user resource).
const maxWatchedDirs = 8192

// skipDir: directories whose changes are not Claude's work to review, or too many to watch.
func skipDir(name string) bool {
	switch name {
	case ".git", "node_modules", ".hg", ".svn", ".cache":
		return true
	}
	return false
}

// watcher watches the workspace folders for the Tracker; each event is handed to
// Tracker.changed. It watches for the bridge's life (a walk per prompt would cost the prompt);
// the Tracker ignores events outside a running turn.
type watcher struct {
	t   *Tracker
	fs  *fsnotify.Watcher
	log *slog.Logger
	wg  sync.WaitGroup

	mu     sync.Mutex
	count  int
	warned bool
}

func newWatcher(t *Tracker, folders []string, log *slog.Logger) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{t: t, fs: fw, log: log}
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		home, _ := os.UserHomeDir()
		for _, f := range folders {
			// An editor started in ~ or / has that as its workspace: watching all of it would
			// cost thousands of inotify watches for changes that are mostly not Claude's.
			if f == "/" || f == home {
				log.Info("review: not watching the home or root folder; only Edit/Write are recorded there", "folder", f)
				continue
			}
			w.addTree(f)
		}
	}()
	go func() {
		defer w.wg.Done()
		w.run()
	}()
	return w, nil
}

func (w *watcher) close() {
	w.fs.Close()
	w.wg.Wait()
}

// addTree watches dir and the directories below it, up to maxWatchedDirs.
func (w *watcher) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		w.mu.Lock()
		full := w.count >= maxWatchedDirs
		warn := full && !w.warned
		if full {
			w.warned = true
		} else {
			w.count++
		}
		w.mu.Unlock()
		if warn {
			w.log.Warn("review: too many directories to watch; changes below the rest are not seen", "limit", maxWatchedDirs)
		}
		if full {
			return filepath.SkipAll
		}
		if err := w.fs.Add(p); err != nil {
			return nil // closed, or gone
		}
		return nil
	})
}

func (w *watcher) run() {
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.log.Warn("review: workspace watch", "err", err)
		}
	}
}

func (w *watcher) event(ev fsnotify.Event) {
	if skipDir(filepath.Base(filepath.Dir(ev.Name))) || ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
		return
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if !skipDir(fi.Name()) {
				w.addTree(ev.Name) // files made in it before the watch began are missed
			}
			return
		}
	}
	if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.t.changed(ev.Name, ev.Has(fsnotify.Create))
	}
}
