// Package watch reports file changes under workspace roots with fsnotify
// (inotify on Linux, kqueue on BSD and macOS): what the language server
// uses for clients that do not offer workspace/didChangeWatchedFiles
// (Neovim 0.7, eglot without a file watcher), so that a `git checkout` or
// `git pull` with the editor open is seen at once.
//
// fsnotify watches single directories: Add walks the root and watches
// every directory but version-control internals and dependency trees
// (.git/*, node_modules, hidden directories other than .gloss), up to
// MaxDirs; directories created later are added as they appear. Git's
// HEAD and index (in .git itself) are watched too: a checkout, pull, reset
// or merge rewrites them, so such a change is seen even where the changed
// directories were over the limit.
package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// MaxDirs bounds the directories one Watcher watches (each is an inotify
// watch; Linux's default per-user limit is 8192 or more).
var MaxDirs = 4096

// Debounce is how long a Watcher waits after the last event of a burst
// (a checkout writes many files) before it reports the burst.
var Debounce = 150 * time.Millisecond

// Event is one changed path.
type Event struct {
	// Path is absolute.
	Path string
	// Deleted is true when the path was removed or renamed away.
	Deleted bool
	// Git is true for git's HEAD or index (the repository's state
	// changed: checkout, pull, commit, reset); Path is then that file.
	Git bool
}

// Watcher watches workspace roots and reports changes in batches.
type Watcher struct {
	fw       *fsnotify.Watcher
	onChange func([]Event)
	logf     func(format string, args ...any)

	flushMu sync.Mutex // one onChange call at a time
	mu      sync.Mutex
	dirs    int
	full    bool // MaxDirs reached (logged once)
	pending map[string]Event
	timer   *time.Timer
	closed  bool
	done    chan struct{}
}

// New starts a watcher that calls onChange (from its own goroutine, one
// call at a time) with each debounced batch of events; logf receives
// problems (a directory that cannot be watched). Close stops it.
func New(onChange func([]Event), logf func(format string, args ...any)) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{fw: fw, onChange: onChange, logf: logf, pending: map[string]Event{}, done: make(chan struct{})}
	go w.loop()
	return w, nil
}

// skipDir reports whether a directory named name is left unwatched.
func skipDir(name string) bool {
	if name == ".gloss" {
		return false
	}
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// Add watches root (absolute) and the directories below it, and git's
// HEAD and index in root/.git. It returns an error when root itself cannot
// be watched.
func (w *Watcher) Add(root string) error {
	if err := w.fw.Add(root); err != nil {
		return err
	}
	w.count(1)
	if err := w.fw.Add(filepath.Join(root, ".git")); err == nil {
		w.count(1)
	}
	w.addTree(root, true)
	return nil
}

// count adds n watched directories.
func (w *Watcher) count(n int) {
	w.mu.Lock()
	w.dirs += n
	w.mu.Unlock()
}

// addTree watches the directories below dir (dir itself too unless
// added).
func (w *Watcher) addTree(dir string, added bool) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p == dir && added {
			return nil
		}
		if p != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		w.mu.Lock()
		if w.closed {
			// Closed while walking (a session that ended at once):
			// every Add would fail with fsnotify.ErrClosed.
			w.mu.Unlock()
			return filepath.SkipAll
		}
		if w.dirs >= MaxDirs {
			full := w.full
			w.full = true
			w.mu.Unlock()
			if !full {
				w.logf("watching %d directories, the limit: changes in others are seen through git's HEAD and index only", MaxDirs)
			}
			return filepath.SkipAll
		}
		w.dirs++
		w.mu.Unlock()
		if err := w.fw.Add(p); err != nil {
			w.count(-1)
			if errors.Is(err, fsnotify.ErrClosed) {
				return filepath.SkipAll // closed between the check above and Add
			}
			w.logf("watch %s: %v", p, err)
		}
		return nil
	})
}

// loop receives fsnotify's events until Close.
func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.logf("file watcher: events were lost (overflow); the next check catches up")
				continue
			}
			w.logf("file watcher: %v", err)
		}
	}
}

// event records one fsnotify event and (re)arms the debounce timer.
func (w *Watcher) event(ev fsnotify.Event) {
	dir, base := filepath.Split(ev.Name)
	e := Event{Path: ev.Name, Deleted: ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)}
	if filepath.Base(filepath.Clean(dir)) == ".git" {
		if base != "HEAD" && base != "index" {
			return // git's other files (locks, logs, objects)
		}
		e.Git = true
	} else if ev.Has(fsnotify.Create) {
		if fi, err := statDir(ev.Name); err == nil && fi && !skipDir(base) {
			w.addTree(ev.Name, false)
		}
	}
	if ev.Has(fsnotify.Chmod) && !e.Deleted && !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Create) {
		return // metadata only
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.pending[e.Path] = e
	if w.timer == nil {
		w.timer = time.AfterFunc(Debounce, w.flush)
	} else {
		w.timer.Reset(Debounce)
	}
}

// flush reports the pending events.
func (w *Watcher) flush() {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	if w.closed || len(w.pending) == 0 {
		w.mu.Unlock()
		return
	}
	batch := make([]Event, 0, len(w.pending))
	for _, e := range w.pending {
		batch = append(batch, e)
	}
	w.pending = map[string]Event{}
	w.mu.Unlock()
	w.onChange(batch)
}

// Close stops the watcher; onChange is not called after it returns
// (except by a flush already running).
func (w *Watcher) Close() error {
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	err := w.fw.Close()
	<-w.done
	return err
}

// statDir reports whether p is a directory (not following a symlink).
func statDir(p string) (bool, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}
