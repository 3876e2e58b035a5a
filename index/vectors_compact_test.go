package index

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/viterin/vek/vek32"

	"github.com/gloss-dev/gloss/embed"
)

// TestDotI8 checks dotI8 (the AVX2 assembly where the CPU has it)
// against the sum in int64, at the extremes of both ranges and with
// random values, for every length the compact rows use up to 512.
func TestDotI8(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 16; n <= 512; n += 16 {
		for trial := range 20 {
			q, x := make([]int16, n), make([]int8, n+int(r.Int31n(3)))
			for j := range q {
				switch trial {
				case 0:
					q[j], x[j] = 32767, 127
				case 1:
					q[j], x[j] = -32767, 127
				default:
					q[j], x[j] = int16(r.Intn(65535)-32767), int8(r.Intn(255)-127)
				}
			}
			qmax := min(32767, math.MaxInt32/(127*n))
			for j := range q {
				q[j] = int16(max(-qmax, min(qmax, int(q[j]))))
			}
			var want int64
			for j := range q {
				want += int64(q[j]) * int64(x[j])
			}
			if got := dotI8(q, x); int64(got) != want {
				t.Fatalf("n %d trial %d: dotI8 %d, want %d", n, trial, got, want)
			}
			if got := dotI8Go(q, x); int64(got) != want {
				t.Fatalf("n %d trial %d: dotI8Go %d, want %d", n, trial, got, want)
			}
		}
	}
}

// TestDotI8Block checks dotI8Block (the AVX2 assembly where the CPU has
// it) and dotI8BlockGo against dotI8Go row by row, for compact rows of
// several dimensions, blocks of 1 to 300 rows (so tails of every length
// after a multiple of 4 or 8 rows), values at the extremes of both
// ranges, and a block that is a window of a larger one (its rows and
// stride as compactCandidates passes them).
func TestDotI8Block(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, dim := range []int{1, 16, 100, 192, 384} {
		cdim := compactDim(dim)
		stride := compactStride(dim)
		qmax := min(32767, math.MaxInt32/(127*cdim))
		for _, rows := range []int{1, 2, 3, 7, 8, 9, 31, 256, 300} {
			q := make([]int16, cdim)
			block := make([]byte, (rows+2)*stride)
			for trial := range 3 {
				for j := range q {
					q[j] = int16(r.Intn(2*qmax+1) - qmax)
					if trial == 0 {
						q[j] = int16(qmax)
					}
				}
				for i := range block {
					block[i] = byte(r.Intn(255) - 127)
					if trial == 0 {
						block[i] = 0x81 // int8 −127
					}
				}
				window := block[stride : (rows+1)*stride] // rows 1..rows of block
				got, gotGo := make([]int32, rows), make([]int32, rows)
				dotI8Block(q, window, stride, got)
				dotI8BlockGo(q, window, stride, gotGo)
				for i := range rows {
					_, c := compactRow(window, i, stride)
					want := dotI8Go(q, c)
					if got[i] != want || gotGo[i] != want {
						t.Fatalf("dim %d rows %d trial %d row %d: dotI8Block %d, dotI8BlockGo %d, want %d", dim, rows, trial, i, got[i], gotGo[i], want)
					}
				}
			}
		}
	}
}

// tableEmbedder embeds a text that is a decimal number k as vecs[k].
type tableEmbedder struct {
	vecs [][]float32
}

func (e *tableEmbedder) Model() string { return "table@1" }
func (e *tableEmbedder) Dim() int      { return len(e.vecs[0]) }
func (e *tableEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		k, err := strconv.Atoi(s)
		if err != nil {
			return nil, err
		}
		out[i] = append([]float32(nil), e.vecs[k]...)
	}
	return out, nil
}

// clustered returns n unit vectors of dimension dim around 12 centres,
// a tenth of them exact copies of an earlier one (tied scores) and one
// zero vector.
func clustered(r *rand.Rand, n, dim int) [][]float32 {
	centres := make([][]float32, 12)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		if i > 0 && r.Intn(10) == 0 {
			out[i] = append([]float32(nil), out[r.Intn(i)]...)
			continue
		}
		c := centres[r.Intn(len(centres))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(0.3*r.NormFloat64())
		}
		embed.Normalize(v)
		out[i] = v
	}
	out[n/2] = make([]float32, dim)
	return out
}

// stored returns v as the index stores it (normalised again).
func stored(v []float32) []float32 {
	v = append([]float32(nil), v...)
	embed.Normalize(v)
	return v
}

// exactTop is the exact scan by definition: every row's vek32.Dot with
// q, hits > 0, best first, ties by id, at most limit.
func exactTop(rows map[string][]float32, q []float32, limit int) []Scored {
	var all []Scored
	for id, v := range rows {
		if x := vek32.Dot(q, v); x > 0 {
			all = append(all, Scored{ID: id, Score: float64(x)})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Score != all[j].Score {
			return all[i].Score > all[j].Score
		}
		return all[i].ID < all[j].ID
	})
	if len(all) > limit {
		all = all[:limit]
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

// TestCompactScanExact checks that a search through the compact rows
// returns exactly the results of scoring every row (ids, order and
// float32 scores), on clustered vectors with ties, for a mapped base,
// after updates that rewrite, add and delete rows (deletions move other
// rows into the compact block's places), after reopening (replaying
// those updates from the log, which checks only the int8 rows) and after
// a compaction then (which checks every row); also that the search scored far fewer
// rows exactly than there are.
func TestCompactScanExact(t *testing.T) {
	for _, dim := range []int{20, 192} {
		r := rand.New(rand.NewSource(int64(dim)))
		const n = 3000
		e := &tableEmbedder{vecs: clustered(r, n+400, dim)}
		rows := map[string][]float32{}
		var docs []Doc
		for k := range n {
			id := "m" + strconv.Itoa(k)
			docs = append(docs, vdoc(id, strconv.Itoa(k)))
			rows[id] = stored(e.vecs[k])
		}
		dir := t.TempDir()
		v, _ := openVec(t, dir, e)
		if err := v.Rebuild(docs, 1); err != nil {
			t.Fatal(err)
		}
		v.Close()
		queries := [][]float32{e.vecs[0], e.vecs[7], e.vecs[n/2]} // rows themselves: ties at the top; the zero row
		for range 30 {                                            // near the rows
			q := append([]float32(nil), e.vecs[r.Intn(n)]...)
			for j := range q {
				q[j] += float32(0.1 * r.NormFloat64())
			}
			embed.Normalize(q)
			queries = append(queries, q)
		}
		queries = append(queries, clustered(r, 4, dim)[1]) // about unrelated to every row
		check := func(stage string, v *Vectors) {
			t.Helper()
			if len(v.st.comp) == 0 {
				t.Fatalf("dim %d, %s: no compact rows", dim, stage)
			}
			for qi, q := range queries {
				for _, limit := range []int{1, 3, 40, 5000} {
					got, err := v.SearchVector(q, limit)
					if err != nil {
						t.Fatal(err)
					}
					if want := exactTop(rows, q, limit); !reflect.DeepEqual(got, want) {
						for i := range min(len(got), len(want)) {
							if got[i] != want[i] {
								t.Logf("at %d: got %v want %v", i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
								break
							}
						}
						t.Fatalf("dim %d, %s, query %d, limit %d: got %d hits, want %d; first %v / %v", dim, stage, qi, limit, len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
					}
				}
				if cands, _ := v.st.compactCandidates(q, 40, nil); qi > 2 && len(cands) > n/4 {
					t.Errorf("dim %d, %s, query %d: %d of %d rows scored exactly", dim, stage, qi, len(cands), n)
				}
			}
		}
		v = openVecOK(t, dir, e)
		check("mapped base", v)
		// Delete base rows alone (base rows move into their places),
		// then rewrite base rows, add rows, delete base rows and added
		// rows.
		var first []string
		for k := 0; k < 20; k++ {
			id := "m" + strconv.Itoa(10+37*k)
			first = append(first, id)
			delete(rows, id)
		}
		if err := v.Update(nil, first, 2); err != nil {
			t.Fatal(err)
		}
		var upd []Doc
		var del []string
		for k := 0; k < 200; k++ {
			id := "m" + strconv.Itoa(r.Intn(n))
			if _, ok := rows[id]; !ok {
				continue
			}
			if k%3 == 0 {
				del = append(del, id)
				delete(rows, id)
				continue
			}
			text := strconv.Itoa(n + k)
			upd = append(upd, vdoc(id, text))
			rows[id] = stored(e.vecs[n+k])
		}
		for k := 200; k < 400; k++ {
			id := "n" + strconv.Itoa(k)
			upd = append(upd, vdoc(id, strconv.Itoa(n+k)))
			rows[id] = stored(e.vecs[n+k])
		}
		if err := v.Update(upd, del, 3); err != nil {
			t.Fatal(err)
		}
		if err := v.Update(nil, []string{"n201", "n399", "m1"}, 4); err != nil {
			t.Fatal(err)
		}
		delete(rows, "n201")
		delete(rows, "n399")
		delete(rows, "m1")
		check("updated", v)
		v.Close()
		v = openVecOK(t, dir, e)
		check("log replayed", v)
		// The replay kept each float32 row's CRC-32 current (setRow,
		// moveRow): verifying all of them before a compaction finds
		// no damage.
		v.logRecs = 1 << 20 // as if the log were long
		if err := v.CompactLog(); err != nil {
			t.Fatalf("dim %d: compaction after the replay: %v", dim, err)
		}
		check("compacted", v)
		v.Close()
	}
}

// TestVectorsReadsV2 opens a base file of the previous format
// (GLOSSVX2: no compact rows, one CRC-32), which it searches as written
// and rewrites in the current format.
func TestVectorsReadsV2(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	e := &tableEmbedder{vecs: clustered(r, 300, 24)}
	rows := map[string][]float32{}
	var b []byte
	b = append(b, vecMagicV2...)
	b = le.AppendUint32(b, uint32(len(e.Model())))
	b = append(b, e.Model()...)
	b = le.AppendUint32(b, 24)
	b = le.AppendUint64(b, 9) // generation
	b = le.AppendUint64(b, 4) // epoch
	b = le.AppendUint32(b, 300)
	for k := range 300 {
		id := "m" + strconv.Itoa(k)
		rows[id] = e.vecs[k]
		b = le.AppendUint16(b, uint16(len(id)))
		b = append(b, id...)
	}
	for k := range 300 {
		b = le.AppendUint64(b, textHash(strconv.Itoa(k)))
	}
	b = append(b, make([]byte, pad4(len(b)))...)
	for k := range 300 {
		for _, x := range e.vecs[k] {
			b = le.AppendUint32(b, math.Float32bits(x))
		}
	}
	b = le.AppendUint32(b, crc32.ChecksumIEEE(b))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, vecBaseFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	v := openVecOK(t, dir, e)
	if g, known := v.Generation(); g != 9 || !known {
		t.Fatalf("generation %d, %v; want 9", g, known)
	}
	got, err := v.SearchVector(e.vecs[5], 10)
	if err != nil || !reflect.DeepEqual(got, exactTop(rows, e.vecs[5], 10)) {
		t.Fatalf("search: %v, %v", got, err)
	}
	v.Close()
	data, err := os.ReadFile(filepath.Join(dir, vecBaseFile))
	if err != nil || string(data[:len(vecMagic)]) != vecMagic {
		t.Fatalf("base not rewritten in the current format: %q, %v", data[:min(len(data), 8)], err)
	}
	v = openVecOK(t, dir, e)
	if len(v.st.comp) == 0 {
		t.Fatal("rewritten base has no compact rows")
	}
	got2, err := v.SearchVector(e.vecs[5], 10)
	if err != nil || !reflect.DeepEqual(got2, got) {
		t.Fatalf("search after rewriting: %v, %v; want %v", got2, err, got)
	}
	// An unchanged text is not embedded again: the hashes were kept.
	if vecs, _, _, err := v.embedMissing(context.Background(), []Doc{vdoc("m3", "3")}, false); err != nil || !reflect.DeepEqual(vecs[0], e.vecs[3]) {
		t.Fatalf("row of m3: %v, %v", vecs, err)
	}
}

// compactCandidatesRef is compactCandidates as written before its bounds
// were inlined: compactQuery.boundsDot per row and a container/heap of
// lower bounds. The reference of TestCompactCandidatesSameAsRef.
func compactCandidatesRef(comp []byte, dim int, q []float32, limit int) []int {
	cq := newCompactQuery(q)
	stride := compactStride(dim)
	n := len(comp) / stride
	lows := make(refLowHeap, 0, limit)
	floor := math.Inf(-1)
	type cand struct {
		row  int
		high float64
	}
	var kept []cand
	for i := range n {
		s, c := compactRow(comp, i, stride)
		lo, hi := cq.boundsDot(s, dotI8Go(cq.q, c))
		if lo > 0 {
			if len(lows) < limit {
				heap.Push(&lows, lo)
			} else if lo > lows[0] {
				lows[0] = lo
				heap.Fix(&lows, 0)
			}
			if len(lows) == limit {
				floor = lows[0]
			}
		}
		if hi > 0 && hi >= floor {
			kept = append(kept, cand{i, hi})
		}
	}
	out := []int{}
	for _, k := range kept {
		if k.high >= floor {
			out = append(out, k.row)
		}
	}
	return out
}

type refLowHeap []float64

func (h refLowHeap) Len() int           { return len(h) }
func (h refLowHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h refLowHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refLowHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *refLowHeap) Pop() any {
	x := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return x
}

// TestCompactCandidatesSameAsRef checks that compactCandidates keeps
// exactly the rows of the reference formulation (boundsDot per row,
// container/heap), in the same order, over clustered and random rows,
// ties (duplicated rows), zero rows and rows whose scale is not finite
// (NaN, ±Inf: always kept) or negative, for limits below, at and above
// the row count, and enough rows (20,000) for groups to be skipped
// (groupBelow).
func TestCompactCandidatesSameAsRef(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, dim := range []int{7, 16, 192} {
		for _, n := range []int{1, 5, 300, 2000, 20000} {
			rows := clustered(r, n, dim)
			for i := 0; i < n; i += 17 {
				copy(rows[i], rows[(i+1)%n]) // ties
			}
			stride := compactStride(dim)
			comp := make([]byte, n*stride)
			for i, v := range rows {
				quantizeRow(comp[i*stride:], v)
			}
			if n > 10 {
				for k, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), -0.01} {
					le.PutUint32(comp[(3+k)*stride:], math.Float32bits(bad))
					if n > 1000 { // also in a group past the first chunk, once lows is full
						le.PutUint32(comp[(n-40+k)*stride:], math.Float32bits(bad))
					}
				}
				clear(comp[9*stride : 10*stride]) // a zero row
			}
			st := &vecState{dim: dim, comp: comp}
			for qi := range 8 {
				q := append([]float32(nil), rows[r.Intn(n)]...)
				if qi%2 == 1 {
					for j := range q {
						q[j] += float32(0.3 * r.NormFloat64())
					}
				}
				embed.Normalize(q)
				for _, limit := range []int{1, 3, 20, n, n + 5} {
					got, ok := st.compactCandidates(q, limit, nil)
					if !ok {
						t.Fatalf("dim %d n %d: not ok", dim, n)
					}
					want := compactCandidatesRef(comp, dim, q, limit)
					if !reflect.DeepEqual(append([]int{}, got...), want) {
						t.Fatalf("dim %d n %d query %d limit %d: got %d %v, want %d %v", dim, n, qi, limit, len(got), got[:min(8, len(got))], len(want), want[:min(8, len(want))])
					}
				}
			}
		}
	}
}

// A compaction writes the compact rows a mapped base keeps as they are
// and quantizes the rest: after rows of the base are replaced and
// removed (the last row moved into the gap) and rows are appended past
// the log bound, every compact row of the new base is the quantized form
// of its float32 row, and every id reads back its vector.
func TestWriteBaseKeepsCompactRows(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	text := func(i int) string { return strings.Repeat(string(rune('a'+i%8)), 1+i%5) + string(rune('a'+(i/8)%8)) }
	var docs []Doc
	for i := range 300 {
		docs = append(docs, vdoc(fmt.Sprintf("r%03d", i), text(i)))
	}
	if err := v.Rebuild(docs, 1); err != nil {
		t.Fatal(err)
	}
	v.Close()
	v = openVecOK(t, dir, e)
	if len(v.st.comp) == 0 {
		t.Fatal("the reopened base keeps no compact rows")
	}
	want := map[string]string{}
	for _, d := range docs {
		want[d.ID] = d.Fields[VectorText]
	}
	var changed []Doc
	for i := 0; i < 300; i += 7 {
		d := vdoc(fmt.Sprintf("r%03d", i), text(i+3))
		changed, want[d.ID] = append(changed, d), d.Fields[VectorText]
	}
	var deleted []string
	for i := 1; i < 300; i += 11 {
		deleted = append(deleted, fmt.Sprintf("r%03d", i))
		delete(want, fmt.Sprintf("r%03d", i))
	}
	if err := v.Append(changed, deleted, 2); err != nil {
		t.Fatal(err)
	}
	var added []Doc
	for i := range 1100 { // past the log bound, max(1,024, rows/64)
		d := vdoc(fmt.Sprintf("n%04d", i), text(i*3))
		added, want[d.ID] = append(added, d), d.Fields[VectorText]
	}
	if err := v.Append(added, nil, 3); err != nil {
		t.Fatal(err)
	}
	if err := v.CompactLog(); err != nil || v.logRecs != 0 {
		t.Fatalf("CompactLog: %v, %d log records left", err, v.logRecs)
	}
	v.Close()
	v = openVecOK(t, dir, e)
	defer v.Close()
	st := v.st
	stride := compactStride(st.dim)
	if st.rows() != len(want) || len(st.comp) != st.rows()*stride {
		t.Fatalf("%d rows, %d compact bytes; want %d rows of %d", st.rows(), len(st.comp), len(want), stride)
	}
	q := make([]byte, stride)
	for i := range st.rows() {
		quantizeRow(q, st.row(i))
		if !bytes.Equal(q, st.comp[i*stride:(i+1)*stride]) {
			t.Fatalf("row %d (%s): compact form %v, its float32 row quantizes to %v", i, st.id(i), st.comp[i*stride:(i+1)*stride], q)
		}
		if w := letterVec(e, want[st.id(i)]); !slices.Equal(st.row(i), w) {
			t.Fatalf("row %d (%s): %v, want %v", i, st.id(i), st.row(i), w)
		}
	}
}

// TestRebuildRowsInPlace rebuilds an index whose rows embedMissing lays
// in one block that the rebuild keeps: with reused rows (unchanged
// texts), newly embedded ones and an id given twice (the later text
// wins, and the rows after it move down onto the block), every row reads
// back as its text's normalized vector (to 1e-6: a reused row is
// normalized again), after reopening too.
func TestRebuildRowsInPlace(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	e := &tableEmbedder{vecs: clustered(r, 40, 16)}
	dir := t.TempDir()
	v, _ := openVec(t, dir, e) // empty: no generation yet
	var first []Doc
	for k := range 20 {
		first = append(first, vdoc(fmt.Sprintf("m%d", k), strconv.Itoa(k)))
	}
	if err := v.Rebuild(first, 1); err != nil {
		t.Fatal(err)
	}
	// m0..m9 unchanged (reused), m10..m19 new texts, m5 twice, m30.. new ids.
	var docs []Doc
	want := map[string]int{}
	for k := range 20 {
		text := k
		if k >= 10 {
			text = k + 10
		}
		docs = append(docs, vdoc(fmt.Sprintf("m%d", k), strconv.Itoa(text)))
		want[fmt.Sprintf("m%d", k)] = text
	}
	docs = append(docs, vdoc("m5", "35"))
	want["m5"] = 35
	for k := 30; k < 34; k++ {
		docs = append(docs, vdoc(fmt.Sprintf("m%d", k), strconv.Itoa(k+6)))
		want[fmt.Sprintf("m%d", k)] = k + 6
	}
	if err := v.Rebuild(docs, 2); err != nil {
		t.Fatal(err)
	}
	check := func(v *Vectors) {
		t.Helper()
		if n, _ := v.Count(); n != uint64(len(want)) {
			t.Fatalf("%d rows, want %d", n, len(want))
		}
		for id, k := range want {
			i, ok := v.st.index(id)
			if !ok {
				t.Fatalf("no row for %s", id)
			}
			x := append([]float32(nil), e.vecs[k]...)
			embed.Normalize(x)
			got := v.st.row(i)
			for j := range x { // a reused row is normalized again
				if math.Abs(float64(got[j]-x[j])) > 1e-6 {
					t.Fatalf("row of %s = %v, want %v (text %d)", id, got, x, k)
				}
			}
		}
	}
	check(v)
	v.Close()
	v = openVecOK(t, dir, e)
	defer v.Close()
	check(v)
}

// textHash is hash/fnv's FNV-1a of the text's bytes (the rows' stored
// hashes were made so), and a document's text is Text without Fields,
// else Fields[VectorText].
func TestTextHashAsFNV(t *testing.T) {
	for _, s := range []string{"", "a", "handle <it> & more", strings.Repeat("héllo wörld ", 50)} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := textHash(s), h.Sum64(); got != want {
			t.Errorf("textHash(%q) = %x, want %x", s, got, want)
		}
	}
	if got := docText(Doc{ID: "m", Text: "plain"}); got != "plain" {
		t.Errorf("docText of a Text doc = %q", got)
	}
	if got := docText(Doc{ID: "m", Fields: map[string]string{VectorText: "field"}, Text: "ignored"}); got != "field" {
		t.Errorf("docText of a Fields doc = %q", got)
	}
}
