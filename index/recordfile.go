package index

// RecordFile returns a File of src built from the stored record rec of
// the same path, without parsing: its definitions are rec.Defs and its
// lines those of src. It returns nil when rec does not describe src — a
// record of another schema version, language or content (rec.Hash is not
// HashBytes(src)) or of a file that did not parse cleanly (HasError) —
// and the caller parses instead. The File has no syntax tree and no
// tokens: use it only for what the definitions and lines give (ranges,
// hashes, snapshots), never for Tokens or Enclosing.
func RecordFile(rec *FileRecord, lang *Language, src []byte) *File {
	if rec == nil || lang == nil || rec.V != SchemaVersion || rec.Lang != lang.Name || rec.HasError {
		return nil
	}
	h := HashBytes(src)
	if h != rec.Hash {
		return nil
	}
	return &File{Path: rec.Path, Lang: lang, Src: src, Lines: NewLines(src), Defs: rec.Defs, Calls: rec.Calls, Imports: rec.Imports, lang: lang, srcHash: h}
}
