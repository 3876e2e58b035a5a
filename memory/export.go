package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/internal/secret"
	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/memory/fields"
	"github.com/gloss-dev/gloss/memory/memfile"
	"github.com/oklog/ulid/v2"
)

// Share makes the memory id a project memory: its Markdown file is written
// under memfile.Dir, to be committed with the code. Sharing a project
// memory changes nothing. It fails when the file cannot be written (a
// symbolic .gloss, for one); the memory then stays personal.
func (w *Workspace) Share(id string) (*Memory, error) {
	return w.setScope(id, ScopeProject)
}

// Unshare makes the memory id a personal memory again: its Markdown file
// is removed (commit the removal to unshare it for the team). Unsharing a
// personal memory changes nothing.
func (w *Workspace) Unshare(id string) (*Memory, error) {
	return w.setScope(id, ScopePersonal)
}

func (w *Workspace) setScope(id, scope string) (*Memory, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	m, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	if m.Scope == scope {
		return m, nil
	}
	if scope == ScopeProject {
		if _, _, err := w.memoryDir(); err != nil {
			return nil, err
		}
	}
	old := m.clone()
	m.Scope, m.UpdatedAt = scope, w.now().UTC()
	if err := w.save(old, m); err != nil {
		return nil, err
	}
	if scope == ScopeProject && m.FileSum == "" {
		return m, fmt.Errorf("memory %s is shared but its file could not be written (see the warning)", m.ID)
	}
	return m, nil
}

// ForgetAll deletes every memory of scope ("" for all scopes), with the
// Markdown files of project memories and the hidden project memories
// (SyncMemoryFiles), durably. It returns the number of listed memories
// deleted.
func (w *Workspace) ForgetAll(scope string) (int, error) {
	if scope != "" && scope != ScopePersonal && scope != ScopeProject {
		return 0, fmt.Errorf("unknown scope %q (want personal or project)", scope)
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	mems, err := w.List()
	if err != nil {
		return 0, err
	}
	b := w.Store.NewMemoryBatch()
	var gone []*Memory
	var ids []string
	for _, m := range mems {
		if scope != "" && m.Scope != scope {
			continue
		}
		if err := deleteMemory(b, m); err != nil {
			b.Close()
			return 0, err
		}
		gone, ids = append(gone, m), append(ids, m.ID)
	}
	hidden := 0
	if scope != ScopePersonal {
		// Hidden project memories (file gone) go too: their local state
		// would otherwise return with a file.
		err := w.Store.HiddenMemories(func(id string) error {
			hidden++
			return b.Unhide(id)
		})
		if err != nil {
			b.Close()
			return 0, err
		}
	}
	if len(gone)+hidden == 0 {
		b.Close()
		return 0, nil
	}
	if err := w.commit(b, nil, ids); err != nil {
		return 0, err
	}
	for _, m := range gone {
		if err := w.RemoveMemoryFile(m); err != nil {
			w.warn(fmt.Errorf("remove memory file of %s: %w", m.ID, err))
		}
	}
	return len(gone), nil
}

// Export formats.
const (
	// ExportJSON is one memory record (Memory, all fields) per line.
	ExportJSON = "json"
	// ExportMarkdown is every memory as a memory file (FormatMemoryFile),
	// one after the other; personal ones say "scope: personal".
	ExportMarkdown = "markdown"
	// ExportClaudeMD is a Markdown briefing for an agent's instruction file
	// (CLAUDE.md, AGENTS.md): memories grouped by file, each cited
	// [gloss:ID], stale ones marked.
	ExportClaudeMD = "claude-md"
)

// Export renders the memories of scope ("" for all) in format (ExportJSON,
// ExportMarkdown or ExportClaudeMD), ordered by place. It returns the text
// and the number of memories in it.
func (w *Workspace) Export(format, scope string) ([]byte, int, error) {
	mems, err := w.List()
	if err != nil {
		return nil, 0, err
	}
	var sel []*Memory
	for _, m := range mems {
		if scope == "" || m.Scope == scope {
			sel = append(sel, m)
		}
	}
	SortByPlace(sel)
	var b bytes.Buffer
	switch format {
	case ExportJSON, "jsonl":
		enc := json.NewEncoder(&b)
		for _, m := range sel {
			if err := enc.Encode(m); err != nil {
				return nil, 0, err
			}
		}
	case ExportMarkdown, "md":
		for i, m := range sel {
			if i > 0 {
				b.WriteString("\n")
			}
			b.Write(FormatMemoryFile(m))
		}
	case ExportClaudeMD:
		writeBriefing(&b, sel)
	default:
		return nil, 0, fmt.Errorf("unknown export format %q (want json, markdown or claude-md)", format)
	}
	return b.Bytes(), len(sel), nil
}

// writeBriefing writes the claude-md export of mems (ordered by place).
func writeBriefing(b *bytes.Buffer, mems []*Memory) {
	b.WriteString("# Code memories (gloss)\n\n")
	b.WriteString("Notes the team anchored to this code with gloss. Each is cited [gloss:ID];\n")
	b.WriteString("STALE means the code changed since the note was written: check before relying on it.\n")
	if len(mems) == 0 {
		b.WriteString("\nNo memories.\n")
		return
	}
	group := "\x00"
	for _, m := range mems {
		g := "(not anchored)"
		if len(m.Anchors) > 0 {
			g = m.Anchors[0].Path
		}
		if g != group {
			group = g
			fmt.Fprintf(b, "\n## %s\n\n", g)
		}
		stale := ""
		if m.Stale() {
			stale = " STALE"
		}
		where := ""
		if len(m.Anchors) > 0 {
			a := m.Anchors[0]
			where = fmt.Sprintf(" (lines %d-%d", a.Range.StartLine+1, a.Range.LastLine()+1)
			if a.DefName != "" {
				where += ", " + a.DefName
			}
			where += ")"
		}
		fmt.Fprintf(b, "- **%s** [%s]%s%s [gloss:%s]\n", m.Title, m.Type, where, stale, m.ID)
		for _, l := range strings.Split(strings.TrimSpace(m.Body), "\n") {
			if l == "" {
				b.WriteString("\n")
			} else {
				fmt.Fprintf(b, "  %s\n", l)
			}
		}
	}
}

// ImportResult is what Import did.
type ImportResult struct {
	// Imported are the ids of memories added.
	Imported []string `json:"imported"`
	// Skipped are ids already in the store (import is idempotent by id).
	Skipped []string `json:"skipped"`
	// Errors describe records that could not be imported, each prefixed
	// with its file and line or record number.
	Errors []string `json:"errors"`
}

// Import adds the memories of path: a JSON-lines file (Export's json
// format), a Markdown file of one or more memory files one after the
// other (Export's markdown format), or a directory of *.md memory files.
// Memories whose id is already in the store (or hidden there) are skipped,
// so importing twice changes nothing; records without an id get a new one.
// Anchors are resolved against this workspace's code. Invalid records are
// reported and the others still imported. It fails only on unreadable
// input or a store error.
func (w *Workspace) Import(ctx context.Context, path string) (ImportResult, error) {
	res := ImportResult{Imported: []string{}, Skipped: []string{}, Errors: []string{}}
	files, err := importFiles(path)
	if err != nil {
		return res, err
	}
	recs, err := w.readImportRecords(files)
	if err != nil {
		return res, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	err = w.storeImported(ctx, recs, &res)
	return res, err
}

// importRecord is one record read by Import: where it is (file and line,
// or file and record number), the memory it describes, or why it could
// not be read.
type importRecord struct {
	where string
	m     *Memory
	err   error
}

// importFiles returns the files Import reads for path: the *.md files of
// a directory (not its subdirectories), sorted by name, or path itself. It
// needs no lock; the error is the one of os.Stat or os.ReadDir.
func importFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	sort.Strings(files)
	return files, nil
}

// readImportRecords reads and parses files in order into import records:
// a file starting with '{' as JSON lines, any other as Markdown memory
// files one after the other. Records that cannot be parsed are returned
// with their error. It needs no lock (the store is not touched); it fails
// only when a file cannot be read.
func (w *Workspace) readImportRecords(files []string) ([]importRecord, error) {
	var recs []importRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(f)
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
			jrecs, err := jsonImportRecords(name, data)
			if err != nil {
				return nil, err
			}
			recs = append(recs, jrecs...)
			continue
		}
		for i, doc := range splitDocs(string(data)) {
			h, body, err := memfile.Parse([]byte(doc))
			var m *Memory
			if err == nil {
				m, err = w.importedFromHeader(h, body)
			}
			recs = append(recs, importRecord{fmt.Sprintf("%s#%d", name, i+1), m, err})
		}
	}
	return recs, nil
}

// jsonImportRecords parses data, the JSON-lines file name, into one
// record per non-blank line (located as name:line). It fails only when the
// file cannot be scanned (a line over 64 MiB).
func jsonImportRecords(name string, data []byte) ([]importRecord, error) {
	var recs []importRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m Memory
		err := json.Unmarshal(line, &m)
		recs = append(recs, importRecord{fmt.Sprintf("%s:%d", name, n), &m, err})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return recs, nil
}

// storeImported validates recs, resolves the anchors of the valid new
// ones against this workspace's code and stores them in one durable
// write, recording in res what was imported, skipped or in error. w.writeMu
// must be held. It returns a context, resolver or store error; on a failed
// commit the memory files it wrote are removed.
func (w *Workspace) storeImported(ctx context.Context, recs []importRecord, res *ImportResult) error {
	r, err := w.newResolver()
	if err != nil {
		return err
	}
	defer r.release()
	b := w.Store.NewMemoryBatch()
	var put []*Memory
	seen := map[string]bool{}
	for _, rc := range recs {
		if err := ctx.Err(); err != nil {
			b.Close()
			return err
		}
		m, err := rc.m, rc.err
		if err == nil {
			err = w.validImport(m)
		}
		if err != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", rc.where, err))
			continue
		}
		if w.importSkipped(m.ID, seen) {
			res.Skipped = append(res.Skipped, m.ID)
			continue
		}
		for i := range m.Anchors {
			a := &m.Anchors[i]
			a.Status, a.FileHash, a.ResolvedGen = "", "", 0
			*a = r.resolve(*a)
		}
		w.stampFile(m)
		if err := w.putMemory(b, nil, m); err != nil {
			b.Close()
			return err
		}
		put = append(put, m)
		res.Imported = append(res.Imported, m.ID)
	}
	if len(put) == 0 {
		b.Close()
		return nil
	}
	if err := w.commit(b, put, nil); err != nil {
		for _, m := range put {
			_ = w.RemoveMemoryFile(m)
		}
		return err
	}
	return nil
}

// importSkipped reports whether the memory id must not be imported: seen
// earlier in this import, already in the store, or hidden there. It marks
// id as seen. w.writeMu must be held (the store is read); read errors
// count as absent, as they always did.
func (w *Workspace) importSkipped(id string, seen map[string]bool) bool {
	if seen[id] {
		return true
	}
	seen[id] = true
	if old, _ := w.get(id); old != nil {
		return true
	}
	if h, _ := w.hidden(id); h != nil {
		return true
	}
	return false
}

// importedFromHeader is the memory a Markdown record describes: a memory
// file's fields, scope project unless it says personal.
func (w *Workspace) importedFromHeader(h memfile.Header, body string) (*Memory, error) {
	id := h.ID
	if id == "" {
		id = newID()
	}
	if !ValidID(id) {
		return nil, fmt.Errorf("id %q is not a memory id (26-character ULID)", id)
	}
	m, _, err := w.memoryFromHeader(id, h, body, nil)
	if err != nil {
		return nil, err
	}
	if h.Scope == ScopePersonal {
		m.Scope = ScopePersonal
	}
	return m, nil
}

// validImport checks an imported record.
func (w *Workspace) validImport(m *Memory) error {
	if m.ID == "" {
		m.ID = newID()
	}
	if !ValidID(m.ID) {
		return fmt.Errorf("id %q is not a memory id (26-character ULID)", m.ID)
	}
	if strings.TrimSpace(m.Body) == "" {
		return errors.New("memory text is empty")
	}
	if err := ValidateType(m.Type); err != nil {
		return err
	}
	if m.Scope != ScopePersonal && m.Scope != ScopeProject {
		return fmt.Errorf("unknown scope %q (want personal or project)", m.Scope)
	}
	if m.Title == "" {
		m.Title = DeriveTitle(m.Body)
	}
	if n := len([]rune(m.Title)); n > fields.MaxTitle {
		return fmt.Errorf("title is %d characters, the limit is %d", n, fields.MaxTitle)
	}
	if err := secret.Check(m.Body + "\n" + m.Title); err != nil {
		return err
	}
	if err := validateRelations(m); err != nil {
		return err
	}
	if m.Source == "" {
		m.Source = "imported_file"
	}
	if m.Confidence == 0 {
		m.Confidence = 1
	}
	if m.HalfLifeDays == 0 {
		m.HalfLifeDays = confidence.HalfLifeOf(m.Type)
	}
	now := w.now().UTC()
	m.defaultDates(now)
	for _, a := range m.Anchors {
		if err := memfile.CheckRelPath(a.Path); err != nil {
			return err
		}
		if a.Kind != KindSymbol && a.Kind != KindSpan {
			return fmt.Errorf("anchor %s: unknown kind %q", a.Path, a.Kind)
		}
		if a.OriginPath != "" {
			if err := memfile.CheckRelPath(a.OriginPath); err != nil {
				return err
			}
		}
	}
	for i := range m.Anchors {
		if m.Anchors[i].OriginPath == "" {
			m.Anchors[i].OriginPath, m.Anchors[i].OriginRange = m.Anchors[i].Path, m.Anchors[i].Range
		}
	}
	m.FileSum = ""
	return nil
}

// splitDocs splits Markdown holding one or more memory files one after
// the other at each "---" line directly followed by an "id:" line.
func splitDocs(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.SplitAfter(s, "\n")
	var docs []string
	start := -1
	for i, l := range lines {
		if strings.TrimRight(l, "\n") == "---" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "id:") {
			if start >= 0 {
				docs = append(docs, strings.Join(lines[start:i], ""))
			}
			start = i
		}
	}
	if start < 0 {
		return []string{s}
	}
	return append(docs, strings.Join(lines[start:], ""))
}

// newID returns a new memory id.
func newID() string { return ulid.Make().String() }
