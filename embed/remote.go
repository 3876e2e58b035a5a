package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// RequestTimeout bounds one HTTP request of a remote embedder.
var RequestTimeout = 60 * time.Second

// remote is what the Ollama and OpenAI-compatible providers share: an
// HTTP client, batching, and checks of what the server returns.
type remote struct {
	model    string // model id (kind:name)
	endpoint string
	batch    int
	headers  map[string]string
	client   *http.Client
	dim      atomic.Int64 // learned from the first answer
	call     func(ctx context.Context, texts []string) ([][]float32, error)
}

func newRemote(model, endpoint string, batch int) *remote {
	return &remote{model: model, endpoint: endpoint, batch: batch, headers: map[string]string{}, client: &http.Client{Timeout: RequestTimeout}}
}

// Model implements Embedder.
func (r *remote) Model() string { return r.model }

// Dim implements Embedder: 0 until the first successful Embed (servers do
// not announce the dimension).
func (r *remote) Dim() int { return int(r.dim.Load()) }

// Embed implements Embedder: texts are sent in batches; every vector is
// checked (count, one dimension, finite and non-zero) and L2-normalised.
func (r *remote) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for len(texts) > 0 {
		n := min(len(texts), r.batch)
		vs, err := r.call(ctx, texts[:n])
		if err != nil {
			return nil, err
		}
		if len(vs) != n {
			return nil, fmt.Errorf("%s: %s returned %d embeddings for %d inputs", r.model, r.endpoint, len(vs), n)
		}
		for _, v := range vs {
			if err := r.check(v); err != nil {
				return nil, err
			}
			Normalize(v)
		}
		out = append(out, vs...)
		texts = texts[n:]
	}
	return out, nil
}

func (r *remote) check(v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("%s: %s returned an empty embedding", r.model, r.endpoint)
	}
	if r.dim.CompareAndSwap(0, int64(len(v))); int(r.dim.Load()) != len(v) {
		return fmt.Errorf("%s: %s returned an embedding of length %d, earlier ones had %d", r.model, r.endpoint, len(v), r.dim.Load())
	}
	if norm(v) == 0 {
		return fmt.Errorf("%s: %s returned a zero embedding", r.model, r.endpoint)
	}
	return nil
}

// post sends req as JSON to the endpoint and decodes the answer into
// resp. A status other than 2xx is an error carrying the server's message
// (the "error" field of its JSON answer, or the start of its body).
func (r *remote) post(ctx context.Context, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, r.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", r.model, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	// An embedding request is idempotent: marked so (without sending the
	// header: a nil value, net/http Transport's documented convention),
	// the Transport sends it again on a new connection when a kept-alive
	// one was closed by the server as the request went out (Node's http
	// server closes idle connections after 5 s) instead of failing.
	hr.Header["Idempotency-Key"] = nil
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	res, err := r.client.Do(hr)
	if err != nil {
		return fmt.Errorf("%s: %w", r.model, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("%s: read answer of %s: %w", r.model, r.endpoint, err)
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s answered %s: %s", r.model, r.endpoint, res.Status, serverMessage(data))
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return fmt.Errorf("%s: %s answered malformed JSON: %w", r.model, r.endpoint, err)
	}
	return nil
}

// serverMessage extracts the error message of an error answer: Ollama
// sends {"error":"..."}, OpenAI {"error":{"message":"..."}}.
func serverMessage(data []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			return s
		}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &m) == nil && m.Message != "" {
			return m.Message
		}
	}
	if len(data) > 300 {
		data = data[:300]
	}
	return string(bytes.TrimSpace(data))
}
