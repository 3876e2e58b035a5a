package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// sameRows reports whether a and b have the same vocabulary rows, bit
// for bit, however each holds them (vecs in place, raw, int8).
func sameRows(a, b *Builtin) bool {
	if a.dim != b.dim || !slices.Equal(a.vocab, b.vocab) {
		return false
	}
	for r := range a.vocab {
		if !slices.Equal(a.wordRow(r, nil), b.wordRow(r, nil)) {
			return false
		}
	}
	return true
}

// embedTexts are texts of words in and outside the topic corpus's
// vocabulary (n-gram buckets), for comparing two models' vectors.
var embedTexts = []string{
	"retry attempts against a throttled upstream",
	"maximum attempts throttling",
	"database connection pooling for queries",
	"unseenword retrying templating", // outside the vocabulary: n-grams
	"",
}

// A model loaded from its file — mapped on Linux, its words and weights
// used in place, or decoded a row at a time when the weights are not
// 4-aligned in memory — has the trained model's id, rows and vectors, bit
// for bit, whatever the alignment of the bytes it was decoded from.
func TestLoadBuiltinVectorsIdentical(t *testing.T) {
	for _, prior := range []bool{false, true} {
		b, err := TrainBuiltin(t.Context(), topicUnits(), TrainOptions{Dim: 16, NoPrior: !prior})
		if err != nil {
			t.Fatal(err)
		}
		if prior && b.prior == nil && len(priorBin) > 0 {
			t.Fatal("no prior attached")
		}
		path := filepath.Join(t.TempDir(), "builtin.model")
		if err := b.Save(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		loaded := map[string]*Builtin{}
		if loaded["file"], err = LoadBuiltin(path); err != nil {
			t.Fatal(err)
		}
		for shift := range 4 { // each alignment of the weights: in place or raw
			buf := make([]byte, len(data)+8)[shift : shift+len(data)]
			copy(buf, data)
			l, err := unmarshalBuiltin(buf, "")
			if err != nil {
				t.Fatal(err)
			}
			loaded["shift"+string(rune('0'+shift))] = l
		}
		raws := 0
		for name, l := range loaded {
			if l.raw != nil {
				raws++
			}
			if l.Model() != b.Model() || !sameRows(l, b) || !slices.Equal(l.common, b.common) {
				t.Fatalf("prior %v, %s: model %s, want %s, or rows differ", prior, name, l.Model(), b.Model())
			}
			for _, text := range embedTexts {
				if got, want := l.EmbedText(text), b.EmbedText(text); !slices.Equal(got, want) {
					t.Fatalf("prior %v, %s: %q embeds to %v, want %v", prior, name, text, got, want)
				}
			}
			l.WarmSubwords()
			if got, want := l.EmbedText(embedTexts[3]), b.EmbedText(embedTexts[3]); !slices.Equal(got, want) {
				t.Fatalf("prior %v, %s: after WarmSubwords %v, want %v", prior, name, got, want)
			}
			if !slices.Equal(l.marshal(), data) {
				t.Fatalf("prior %v, %s: marshals to other bytes than its file", prior, name)
			}
		}
		if raws == 0 || raws == len(loaded) {
			t.Fatalf("prior %v: %d of %d loadings with raw rows, want both kinds", prior, raws, len(loaded))
		}
	}
}

// The model id is the SHA-256 of the file computed at Save and recorded
// beside it; LoadBuiltin takes it from there only for the very file it
// was recorded for (same size, modification time and CRC-32), else
// computes it again and rewrites the record.
func TestLoadBuiltinModelIDSidecar(t *testing.T) {
	b := trainTopics(t)
	path := filepath.Join(t.TempDir(), "builtin.model")
	if err := b.Save(path); err != nil {
		t.Fatal(err)
	}
	readSide := func() modelIDFile {
		t.Helper()
		raw, err := os.ReadFile(path + modelIDSuffix)
		if err != nil {
			t.Fatal(err)
		}
		var f modelIDFile
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	data, _ := os.ReadFile(path)
	if side := readSide(); side.Model != b.Model() || side.Model != builtinID(16, 0, data) || side.Size != int64(len(data)) {
		t.Fatalf("sidecar %+v, want model %s of %d bytes", side, b.Model(), len(data))
	}
	// A record for this file is used as is (a made-up id shows it).
	side := readSide()
	side.Model = "builtin:recorded"
	raw, _ := json.Marshal(side)
	if err := os.WriteFile(path+modelIDSuffix, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := LoadBuiltin(path); err != nil || l.Model() != "builtin:recorded" {
		t.Fatalf("loaded %v, %v; want the recorded id", l, err)
	}
	// Another modification time, size or CRC-32: computed and rewritten.
	for _, change := range []func(*modelIDFile){
		func(f *modelIDFile) { f.MtimeNS++ },
		func(f *modelIDFile) { f.Size-- },
		func(f *modelIDFile) { f.CRC32 ^= 1 },
	} {
		f := side
		change(&f)
		raw, _ := json.Marshal(f)
		if err := os.WriteFile(path+modelIDSuffix, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if l, err := LoadBuiltin(path); err != nil || l.Model() != b.Model() {
			t.Fatalf("stale record %+v: loaded %v, %v; want %s", f, l, err, b.Model())
		}
		if got := readSide(); got.Model != b.Model() || got.MtimeNS != side.MtimeNS || got.Size != side.Size || got.CRC32 != side.CRC32 {
			t.Fatalf("record after a stale one: %+v", got)
		}
	}
	// A file touched since (same bytes, new time) and a damaged record.
	if err := os.Chtimes(path, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+modelIDSuffix, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := LoadBuiltin(path); err != nil || l.Model() != b.Model() {
		t.Fatalf("damaged record: loaded %v, %v; want %s", l, err, b.Model())
	}
	if got := readSide(); got.Model != b.Model() {
		t.Fatalf("record not rewritten: %+v", got)
	}
}

// priorBinSum is the hash of the embedded prior.bin: update it with the
// file (go generate).
func TestPriorBinSum(t *testing.T) {
	if len(priorBin) == 0 {
		t.Skip("built without a prior")
	}
	h := sha256.Sum256(priorBin)
	if want := hex.EncodeToString(h[:])[:12]; priorBinSum != want || priorSum(priorBin) != want {
		t.Fatalf("priorBinSum = %q, prior.bin hashes to %s: update it", priorBinSum, want)
	}
	p, err := Prior()
	if err != nil {
		t.Fatal(err)
	}
	u, err := UnmarshalPrior(priorBin)
	if err != nil {
		t.Fatal(err)
	}
	if p.Model() != u.Model() || !sameRows(p, u) {
		t.Fatalf("Prior %s, UnmarshalPrior %s", p.Model(), u.Model())
	}
}

// wordTable finds every word of a vocabulary at its row (the last one of
// a duplicate, as a map assigned in row order) and no other word.
func TestWordTable(t *testing.T) {
	p, err := Prior()
	if err != nil || p == nil {
		t.Skip("built without a prior")
	}
	vocab := append(append([]string(nil), p.vocab...), p.vocab[7], "")
	tab := newWordTable(vocab)
	want := map[string]int32{}
	for i, w := range vocab {
		want[w] = int32(i)
	}
	for w, r := range want {
		if got, ok := tab.lookup(w); !ok || got != r {
			t.Fatalf("lookup(%q) = %d, %v; want %d", w, got, ok, r)
		}
	}
	for _, w := range []string{"xyzzyq", "retryingly", p.vocab[0] + "x", " "} {
		if _, ok := want[w]; ok {
			continue
		}
		if r, ok := tab.lookup(w); ok {
			t.Fatalf("lookup(%q) = %d, want none", w, r)
		}
	}
	var empty wordTable
	if _, ok := empty.lookup("a"); ok {
		t.Fatal("empty table found a word")
	}
}
