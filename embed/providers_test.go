package embed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nlpodyssey/safetensors"
)

// fakeVector is the fake servers' embedding of a text: [len, 1, count of 'a'].
func fakeVector(s string) []float32 {
	return []float32{float32(len(s)), 1, float32(strings.Count(s, "a"))}
}

func unit(v []float32) []float32 {
	out := append([]float32(nil), v...)
	Normalize(out)
	return out
}

func TestOllama(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/api/embed" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		if req.Model != "nomic" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"model \"` + req.Model + `\" not found, try pulling it first"}`))
			return
		}
		var resp struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		for _, s := range req.Input {
			resp.Embeddings = append(resp.Embeddings, fakeVector(s))
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	o := NewOllama("nomic", srv.URL)
	texts := make([]string, 70)
	for i := range texts {
		texts[i] = strings.Repeat("a", i) + "b"
	}
	vs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 70 || calls.Load() != 3 || o.Dim() != 3 || o.Model() != "ollama:nomic" {
		t.Fatalf("%d vectors in %d calls, dim %d, model %s; want 70 in 3 batches of ≤32, dim 3", len(vs), calls.Load(), o.Dim(), o.Model())
	}
	if got, want := vs[5], unit(fakeVector(texts[5])); !close32(got, want) {
		t.Fatalf("vector 5 = %v, want %v", got, want)
	}
	_, err = NewOllama("missing", srv.URL).Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), `model "missing" not found`) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown model: err %v, want the server's message and status", err)
	}
}

func close32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func TestOpenAI(t *testing.T) {
	var auth atomic.Value
	mode := atomic.Value{}
	mode.Store("ok")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- { // out of order: placed by index
			v := fakeVector(req.Input[i])
			switch mode.Load() {
			case "dim":
				v = v[:1+i%2]
			case "limit":
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
				return
			}
			data = append(data, item{v, i})
		}
		if mode.Load() == "short" {
			data = data[1:]
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "model": "m"})
	}))
	defer srv.Close()
	t.Setenv(APIKeyEnv, "sk-test")
	o, err := NewOpenAI("text-embedding-3-small", srv.URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "aaa"}
	vs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if !close32(vs[i], unit(fakeVector(s))) {
			t.Fatalf("vector %d = %v, want %v", i, vs[i], unit(fakeVector(s)))
		}
	}
	if auth.Load() != "Bearer sk-test" || o.Model() != "openai:text-embedding-3-small" {
		t.Fatalf("authorization %q, model %s", auth.Load(), o.Model())
	}
	for _, m := range []string{"dim", "limit", "short"} {
		mode.Store(m)
		o2, _ := NewOpenAI("x", srv.URL, "")
		if _, err := o2.Embed(context.Background(), texts); err == nil {
			t.Fatalf("mode %s: no error", m)
		} else if m == "limit" && !strings.Contains(err.Error(), "Rate limit reached") {
			t.Fatalf("rate limit: err %v, want the server's message", err)
		}
	}
	if _, err := NewOpenAI("x", "localhost:8080", ""); err == nil {
		t.Fatal("URL without scheme accepted")
	}
	// A server that is down fails with a clear error, at once.
	srv.Close()
	if _, err := o.Embed(context.Background(), texts); err == nil || !strings.Contains(err.Error(), "openai:text-embedding-3-small") {
		t.Fatalf("server down: err %v", err)
	}
}

// writeTinyModel2Vec writes a model2vec directory with a 9-token
// WordPiece vocabulary and 4-dimensional rows (row i = e_(i mod 4) · (i+1)).
func writeTinyModel2Vec(t *testing.T, dtype safetensors.DType) string {
	t.Helper()
	var data []byte
	for i := 0; i < 9; i++ {
		for j := 0; j < 4; j++ {
			v := float32(0)
			if j == i%4 {
				v = float32(i + 1)
			}
			if dtype == safetensors.F32 {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
			} else { // BF16: the upper half of the float32
				data = binary.LittleEndian.AppendUint16(data, uint16(math.Float32bits(v)>>16))
			}
		}
	}
	return writeModel2VecDir(t, map[string]safetensors.TensorView{"embeddings": tensor(t, dtype, []uint64{9, 4}, data)})
}

func TestModel2Vec(t *testing.T) {
	for _, dt := range []safetensors.DType{safetensors.F32, safetensors.BF16} {
		dir := writeTinyModel2Vec(t, dt)
		m, err := LoadModel2Vec(dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.Dim() != 4 || !strings.HasPrefix(m.Model(), "model2vec:potion-tiny@") {
			t.Fatalf("dim %d, model %s", m.Dim(), m.Model())
		}
		// "Retrying caps, Café!" → retry ##ing cap ##s , cafe (accent
		// stripped, lower-cased); "!" is unknown and dropped.
		if ids := m.tok.encode("Retrying caps, Café!", 512); len(ids) != 6 || ids[0] != 2 || ids[1] != 3 || ids[5] != 8 {
			t.Fatalf("token ids %v, want [2 3 4 5 7 8]", ids)
		}
		vs, err := m.Embed(context.Background(), []string{"Retrying caps, Café!", "zzz"})
		if err != nil {
			t.Fatal(err)
		}
		// rows 2,3,4,5,7,8: e2·3, e3·4, e0·5, e1·6, e3·8, e0·9 → (14, 6, 3, 12)
		if want := unit([]float32{14, 6, 3, 12}); !close32(vs[0], want) {
			t.Fatalf("%v: vector %v, want %v", dt, vs[0], want)
		}
		if norm(vs[1]) != 0 {
			t.Fatalf("unknown text: %v, want zero", vs[1])
		}
	}
	// Broken directories fail with the file's name.
	dir := writeTinyModel2Vec(t, safetensors.F32)
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), []byte("garbage!!"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModel2Vec(dir); err == nil || !strings.Contains(err.Error(), "model.safetensors") {
		t.Fatalf("corrupt safetensors: err %v", err)
	}
	if _, err := LoadModel2Vec(t.TempDir()); err == nil {
		t.Fatal("empty directory loaded")
	}
	if got := halfToFloat(0x3c00); got != 1 { // binary16 1.0
		t.Fatalf("halfToFloat(1.0) = %v", got)
	}
	if got := halfToFloat(0xc000); got != -2 {
		t.Fatalf("halfToFloat(-2.0) = %v", got)
	}
}

func TestParseSpec(t *testing.T) {
	for in, want := range map[string]Spec{
		"":                          {Kind: KindBuiltin},
		"builtin":                   {Kind: KindBuiltin},
		"none":                      {Kind: KindNone},
		"model2vec:/m/potion":       {Kind: KindModel2Vec, Dir: "/m/potion"},
		"ollama:nomic-embed-text":   {Kind: KindOllama, Model: "nomic-embed-text"},
		"openai:e3@http://h:8080/":  {Kind: KindOpenAI, Model: "e3", URL: "http://h:8080"},
		"ollama:bge-m3@http://x:11": {Kind: KindOllama, Model: "bge-m3", URL: "http://x:11"},
	} {
		got, err := ParseSpec(in)
		if err != nil || got != want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"ollama:", "bert", "model2vec:", "none:x"} {
		if _, err := ParseSpec(bad); err == nil || !strings.Contains(err.Error(), "want builtin") {
			t.Errorf("ParseSpec(%q): err %v", bad, err)
		}
	}
}

// TestRemoteRetriesClosedIdleConnection checks that an embedding request
// sent on a kept-alive connection the server has just closed is sent
// again on a new one: Node's http server (the dev server of
// scripts/use-embeddings-server) closes idle connections after 5 s, and a
// request racing that close got "connection reset by peer". The fake
// server closes the connection of its second request without answering.
func TestRemoteRetriesClosedIdleConnection(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		var resp struct {
			Data []map[string]any `json:"data"`
		}
		for i, s := range req.Input {
			resp.Data = append(resp.Data, map[string]any{"index": i, "embedding": fakeVector(s)})
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	o, err := NewOpenAI("m", srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := o.Embed(context.Background(), []string{"aab"}); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d requests reached the server, want 3 (one closed, sent again)", n)
	}
}
