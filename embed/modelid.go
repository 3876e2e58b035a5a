package embed

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// modelIDSuffix names the sidecar of a saved built-in model: PATH.id
// beside PATH holds the model id computed from the file (modelIDFile),
// so that a process loading the model does not hash its 2 MB again
// (SHA-256: about 3 ms of a CLI search's CPU, docs/benchmarks.md).
const modelIDSuffix = ".id"

// modelIDFile is the content of a model's id sidecar (JSON). The id is
// used only when the model file just loaded has the recorded size and
// modification time (nanoseconds since the Unix epoch) and ends in the
// recorded CRC-32 (IEEE) of its content, which the load verified: a
// model replaced by another (Save renames a new file into place) differs
// in one of them, and its id is then computed again from its bytes.
type modelIDFile struct {
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	CRC32   uint32 `json:"crc32"`
	Model   string `json:"model"`
}

// modelIDKey returns the sidecar fields identifying the model file of
// attributes st and content data (whose last 4 bytes are its CRC-32).
func modelIDKey(st os.FileInfo, data []byte) (modelIDFile, bool) {
	if st == nil || len(data) < 4 || st.Size() != int64(len(data)) {
		return modelIDFile{}, false
	}
	return modelIDFile{Size: st.Size(), MtimeNS: st.ModTime().UnixNano(), CRC32: binary.LittleEndian.Uint32(data[len(data)-4:])}, true
}

// readModelID returns the model id recorded beside the model file at path
// for the file of attributes st and content data, or "" when the sidecar
// is missing, unreadable or recorded for another file.
func readModelID(path string, st os.FileInfo, data []byte) string {
	key, ok := modelIDKey(st, data)
	if !ok {
		return ""
	}
	raw, err := os.ReadFile(path + modelIDSuffix)
	if err != nil {
		return ""
	}
	var f modelIDFile
	if json.Unmarshal(raw, &f) != nil || f.Model == "" {
		return ""
	}
	if f.Size != key.Size || f.MtimeNS != key.MtimeNS || f.CRC32 != key.CRC32 {
		return ""
	}
	return f.Model
}

// writeModelID records id beside the model file at path, of attributes
// st and content data, atomically (a temporary file, then rename). It is
// best effort: a read-only directory only means the next load computes
// the id again. The error is returned for tests and Save.
func writeModelID(path string, st os.FileInfo, data []byte, id string) error {
	key, ok := modelIDKey(st, data)
	if !ok {
		return errors.New("model file changed while read")
	}
	key.Model = id
	raw, err := json.Marshal(key)
	if err != nil {
		return err
	}
	return writeFileAtomic(path+modelIDSuffix, ".builtin-id-*.tmp", append(raw, '\n'))
}

// writeFileAtomic writes data to path through a temporary file named by
// pattern (os.CreateTemp) in path's directory, then renames it over path,
// so a reader sees the old file or the whole new one. The temporary file
// is removed on any error, which is returned unwrapped.
func writeFileAtomic(path, pattern string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
