package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory/memfile"
)

// Team memories (DESIGN.md "Storage"): the Markdown files under
// memfile.Dir are the source of truth for project scope. The store
// holds a copy of each, tagged with the SHA-256 of the file it came from
// (Memory.FileSum), and SyncMemoryFiles brings the copies in line with the
// files:
//
//   - a new file, or a file whose bytes differ from the copy, is loaded
//     (text, type, tags, provenance; anchors when their definition — kind,
//     hashes, origin, snapshot — differs from the copy's, so a checkout
//     keeps its own resolution state otherwise) and its new anchors are
//     resolved against this checkout's code;
//   - a project memory whose file is gone is hidden: moved to a separate
//     keyspace that List, Get, search and the editor never see, so a later
//     checkout, stash pop or merge that brings the file back restores it
//     (with its local state, such as access counts, when the file is the
//     same);
//   - a file that cannot be loaded (broken front matter, merge-conflict
//     markers, an id that is not its name, a path outside the workspace, a
//     symbolic link) is reported as a FileProblem and changes nothing: the
//     copy, if any, stays as it was;
//   - personal memories are never touched by files: a file named with a
//     personal memory's id is reported and ignored.
//
// A project memory whose copy was never synchronized with a file (FileSum
// "", a store from before files were the truth) gets its file written
// instead of being hidden, so upgrading loses nothing.

// maxMemoryFileSize caps the memory files SyncMemoryFiles reads, in bytes.
const maxMemoryFileSize = 4 << 20

// FileProblem is a memory file SyncMemoryFiles could not load.
type FileProblem struct {
	// Path is workspace-relative, slash-separated.
	Path string `json:"path"`
	// Line is 1-based, 0 when unknown.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String formats p as "path:line: message".
func (p FileProblem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Message)
}

// SyncResult is what SyncMemoryFiles did. Lists hold memory ids.
type SyncResult struct {
	// Loaded memories were added, changed or restored from their files.
	Loaded []string `json:"loaded,omitempty"`
	// Hidden project memories lost their file.
	Hidden []string `json:"hidden,omitempty"`
	// Written files were (re)written from the store: memories never
	// synchronized with a file, and files of an older format.
	Written []string `json:"written,omitempty"`
	// Problems are the files that were not loaded, and why.
	Problems []FileProblem `json:"problems,omitempty"`
}

// Changed reports whether the store's memories changed.
func (r SyncResult) Changed() bool { return len(r.Loaded)+len(r.Hidden) > 0 }

// addEarlier puts the memories an earlier synchronization of the same
// check loaded, hid or wrote before r's own (its problems were reported
// again by r's run, so they are not repeated).
func (r *SyncResult) addEarlier(e SyncResult) {
	r.Loaded = append(e.Loaded, r.Loaded...)
	r.Hidden = append(e.Hidden, r.Hidden...)
	r.Written = append(e.Written, r.Written...)
}

// memFile is one memory file as read by a sync.
type memFile struct {
	rel  string
	h    memfile.Header
	body string
	sum  string
	err  error // set when the file cannot be loaded
}

// fileStamp caches a parsed memory file by size and modification time, so
// a sync does not re-read unchanged files.
type fileStamp struct {
	size int64
	mod  time.Time
	f    memFile
}

// SyncMemoryFiles loads new, changed and deleted memory files of
// memfile.Dir into the store and the search index (see the policy
// above). Check calls it, so `gloss check`, `gloss index`, the editor's
// first check and every watched-file event apply git pull, checkout,
// merge and stash. It fails only when the store cannot be read or
// written; unloadable files are reported in the result.
func (w *Workspace) SyncMemoryFiles(ctx context.Context) (SyncResult, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.syncFiles(ctx, "")
}

// MemoryFileChanged applies a change to a file of the workspace seen by a
// watcher or an editor save: when path is a memory file (MemoryFileID),
// its memory is synchronized with the file as it is on disk now, whatever
// the event said (deleted: the memory is hidden until the file returns).
// Other files, files named with an id prefix and files of personal
// memories change nothing. It reports whether the store changed; the
// error describes a file that could not be loaded.
func (w *Workspace) MemoryFileChanged(ctx context.Context, path string, deleted bool) (bool, error) {
	_ = deleted // the file's state on disk decides: events can arrive late
	id := w.MemoryFileID(path)
	if id == "" {
		return false, nil
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	res, err := w.syncFiles(ctx, id)
	if err != nil {
		return false, err
	}
	if len(res.Problems) > 0 {
		return res.Changed(), errors.New(res.Problems[0].String())
	}
	return res.Changed(), nil
}

// syncFiles implements SyncMemoryFiles for every file (only "") or for the
// memory id only. w.writeMu is held.
func (w *Workspace) syncFiles(ctx context.Context, only string) (SyncResult, error) {
	return w.syncFilesListed(ctx, only, nil)
}

// syncFilesListed is syncFiles with the store's memories already listed
// (listed, when not nil, is every memory as List returns it, which a whole
// sync would otherwise read again). w.writeMu is held.
func (w *Workspace) syncFilesListed(ctx context.Context, only string, listed []*Memory) (SyncResult, error) {
	return w.syncFilesStored(ctx, only, func() (map[string]*Memory, error) { return w.storedForSync(only, listed) })
}

// syncFilesStored is syncFiles with the store's memories to compare given
// by storedFn (called once the files are read). w.writeMu is held.
func (w *Workspace) syncFilesStored(ctx context.Context, only string, storedFn func() (map[string]*Memory, error)) (SyncResult, error) {
	var res SyncResult
	files, ok := w.readSyncFiles(only, &res)
	if !ok {
		return res, nil // refused or unreadable: nothing is hidden or loaded
	}
	stored, err := storedFn()
	if err != nil {
		return res, err
	}
	if err := w.storedForFiles(files, stored); err != nil {
		return res, err
	}
	ids := syncIDs(files, stored)
	var r *resolver
	defer func() {
		if r != nil {
			r.release()
		}
	}()
	rewrite, err := w.applyMemFiles(ctx, ids, files, stored, only, &r, &res)
	if err != nil {
		return res, err
	}
	err = w.writeSyncedFiles(rewrite, &res)
	return res, err
}

// readSyncFiles reads the memory files of a sync (every file, or only the
// memory id only's) by id, reporting unloadable files in res. ok is false
// when the memory files directory is refused or unreadable (reported in
// res): the sync must then change nothing. A missing directory is no file.
// w.writeMu is held (readMemFile updates w.fileStamps).
func (w *Workspace) readSyncFiles(only string, res *SyncResult) (files map[string]*memFile, ok bool) {
	dir, exists, err := w.memoryDir()
	if err != nil {
		res.Problems = append(res.Problems, FileProblem{Path: ".gloss", Message: err.Error()})
		return nil, false
	}
	files = map[string]*memFile{}
	if !exists {
		return files, true
	}
	if only != "" {
		w.readMemFile(dir, only+".md", files, res)
		return files, true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		res.Problems = append(res.Problems, FileProblem{Path: memfile.Dir, Message: err.Error()})
		return nil, false
	}
	for _, e := range ents {
		w.readMemFile(dir, e.Name(), files, res)
	}
	return files, true
}

// storedForSync returns the store's memories a sync compares with the
// files, by id: all of them (copies of listed when given), or only the
// memory id only (none when it is not stored). w.writeMu is held. It
// returns a store read error.
func (w *Workspace) storedForSync(only string, listed []*Memory) (map[string]*Memory, error) {
	stored := map[string]*Memory{}
	if only != "" {
		m, err := w.get(only)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		if m != nil {
			stored[only] = m
		}
		return stored, nil
	}
	mems := listed
	if mems == nil {
		if ok, err := w.Store.SummariesCurrent(); err == nil && ok {
			return w.storedBySummary(stored)
		}
		var err error
		if mems, err = w.List(); err != nil {
			return nil, err
		}
	}
	for _, m := range mems {
		stored[m.ID] = m.clone()
	}
	return stored, nil
}

// syncIDs returns the ids of files and of stored memories, each once,
// sorted: the order in which a sync applies them.
func syncIDs(files map[string]*memFile, stored map[string]*Memory) []string {
	ids := make([]string, 0, len(files)+len(stored))
	for id := range files {
		ids = append(ids, id)
	}
	for id := range stored {
		if files[id] == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// applyMemFiles brings the store's copies of ids in line with their files
// in one batch, committed when anything was loaded or hidden (the policy
// above SyncMemoryFiles), and records in res what it loaded, hid and could
// not load. *r is the sync's resolver, made on first need (the caller
// releases it). w.writeMu is held. It returns the memories whose files
// must be (re)written, or a context or store error (the batch is then
// discarded).
func (w *Workspace) applyMemFiles(ctx context.Context, ids []string, files map[string]*memFile, stored map[string]*Memory, only string, r **resolver, res *SyncResult) ([]*Memory, error) {
	b := w.Store.NewMemoryBatch()
	var put, rewrite []*Memory
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			b.Close()
			return nil, err
		}
		f, m := files[id], stored[id]
		switch {
		case f == nil:
			if m.Scope != ScopeProject {
				continue
			}
			if m.FileSum == "" && only == "" {
				rewrite = append(rewrite, m) // never synchronized: write its file
				continue
			}
			if err := hideMemory(b, m); err != nil {
				b.Close()
				return nil, err
			}
			res.Hidden = append(res.Hidden, id)
		case f.err != nil:
			// Reported by readMemFile; the copy stays as it was.
		case m != nil && m.Scope != ScopeProject:
			res.Problems = append(res.Problems, FileProblem{Path: f.rel, Message: fmt.Sprintf("memory %s is personal in this store: the file is ignored (gloss share %s makes it a project memory)", id, id)})
		case m != nil && m.FileSum == f.sum:
			// Unchanged.
		default:
			nm, upgrade, err := w.loadMemFile(b, id, f, m, r, res)
			if err != nil {
				b.Close()
				return nil, err
			}
			if nm == nil {
				continue // not loadable: reported in res
			}
			put = append(put, nm)
			res.Loaded = append(res.Loaded, id)
			if upgrade {
				rewrite = append(rewrite, nm)
			}
		}
	}
	if len(put)+len(res.Hidden) > 0 {
		if err := w.commit(b, put, res.Hidden); err != nil {
			return nil, err
		}
	} else {
		b.Close()
	}
	return rewrite, nil
}

// loadMemFile adds to b the memory id as its new or changed file f
// describes it, over its stored copy m (nil: unhidden or new), making the
// resolver *r first if there is none yet. w.writeMu is held. It returns the
// memory and whether its file must be rewritten (an older format); a nil
// memory and nil error when the file cannot be loaded (reported in res);
// an error when the store or resolver fails (b must then be discarded).
func (w *Workspace) loadMemFile(b *index.MemoryBatch, id string, f *memFile, m *Memory, r **resolver, res *SyncResult) (*Memory, bool, error) {
	if *r == nil {
		var err error
		if *r, err = w.newResolver(); err != nil {
			return nil, false, err
		}
	}
	nm, upgrade, err := w.fromFile(id, f, m, *r)
	if err != nil {
		res.Problems = append(res.Problems, problemOf(f.rel, err))
		return nil, false, nil
	}
	if m == nil {
		if err := b.Unhide(id); err != nil {
			return nil, false, err
		}
	}
	if err := w.putMemory(b, m, nm); err != nil {
		return nil, false, err
	}
	return nm, upgrade, nil
}

// writeSyncedFiles writes the memory file of each memory of rewrite, then
// stores its new sum in its own commit (a crash in between reloads the
// same content from the file), recording the ids in res.Written; a memory
// whose file could not be written is skipped. w.writeMu is held. It
// returns the first store error.
func (w *Workspace) writeSyncedFiles(rewrite []*Memory, res *SyncResult) error {
	for _, m := range rewrite {
		old := m.clone()
		w.stampFile(m)
		if m.FileSum == "" {
			continue
		}
		b := w.Store.NewMemoryBatch()
		if err := w.putMemory(b, old, m); err != nil {
			b.Close()
			return err
		}
		if err := w.commit(b, []*Memory{m}, nil); err != nil {
			return err
		}
		res.Written = append(res.Written, m.ID)
	}
	return nil
}

// readMemFile reads the directory entry name of the memory files
// directory dir into files (by id), reporting files that are not memory
// files or cannot be loaded. Files not ending in .md are ignored.
func (w *Workspace) readMemFile(dir, name string, files map[string]*memFile, res *SyncResult) {
	if !strings.HasSuffix(name, ".md") {
		return
	}
	rel := memfile.Dir + "/" + name
	id := strings.TrimSuffix(name, ".md")
	if !ValidID(id) {
		res.Problems = append(res.Problems, FileProblem{Path: rel, Message: "not a memory file name (<ID>.md, the memory's full 26-character id): ignored"})
		return
	}
	full := filepath.Join(dir, name)
	st, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	f := &memFile{rel: rel}
	files[id] = f
	switch {
	case err != nil:
		f.err = err
	case st.Mode()&fs.ModeSymlink != 0:
		f.err = errors.New("is a symbolic link: gloss does not read memory files through links")
	case !st.Mode().IsRegular():
		f.err = errors.New("is not a regular file")
	case st.Size() > maxMemoryFileSize:
		f.err = fmt.Errorf("is %d bytes, over the %d-byte limit of memory files", st.Size(), maxMemoryFileSize)
	}
	if f.err == nil {
		if c, ok := w.fileStamps[id]; ok && c.size == st.Size() && c.mod.Equal(st.ModTime()) {
			*f = c.f
		} else {
			f.err = w.parseMemFile(f, full, id)
			if w.fileStamps == nil {
				w.fileStamps = map[string]fileStamp{}
			}
			w.fileStamps[id] = fileStamp{size: st.Size(), mod: st.ModTime(), f: *f}
		}
	}
	if f.err != nil {
		res.Problems = append(res.Problems, problemOf(rel, f.err))
	}
}

// parseMemFile reads and parses the memory file full into f.
func (w *Workspace) parseMemFile(f *memFile, full, id string) error {
	data, err := w.readMemoryFile(full) // regular files only, no FIFO, no symlink out
	if err != nil {
		return err
	}
	f.sum = index.HashBytes(data)
	if f.h, f.body, err = memfile.Parse(data); err != nil {
		return err
	}
	if f.h.ID != id {
		return fmt.Errorf("front matter id %q is not the file's name %s.md (a copy of another memory's file?): ignored", f.h.ID, id)
	}
	if f.h.Scope != "" && f.h.Scope != ScopeProject {
		return fmt.Errorf("scope %q: memory files are project memories (remove the scope line)", f.h.Scope)
	}
	return nil
}

var yamlLine = regexp.MustCompile(`yaml: line (\d+):`)
var fileLine = regexp.MustCompile(`^line (\d+): `)

// problemOf turns a load error of the memory file rel into a FileProblem,
// with the file's line when the error names one.
func problemOf(rel string, err error) FileProblem {
	msg := err.Error()
	p := FileProblem{Path: rel, Message: msg}
	if m := fileLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Message = strings.TrimPrefix(msg, m[0])
	} else if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		p.Line = n + 1 // the front matter starts on line 2
	}
	return p
}

// hideMemory moves m to the hidden keyspace in b (index.MemoryBatch.Hide).
func hideMemory(b *index.MemoryBatch, m *Memory) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := dropRelations(b, m); err != nil {
		return err
	}
	return b.Hide(m.ID, data, anchorPaths(m))
}

// hidden returns the hidden project memory id, or nil.
func (w *Workspace) hidden(id string) (*Memory, error) {
	val, err := w.Store.HiddenMemory(id)
	if errors.Is(err, index.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Memory
	if err := json.Unmarshal(val, &m); err != nil {
		return nil, fmt.Errorf("corrupt hidden memory %s: %w", id, err)
	}
	return &m, nil
}
