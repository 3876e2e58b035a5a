package embed

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// DefaultOpenAIURL is the OpenAI API's base URL.
const DefaultOpenAIURL = "https://api.openai.com"

// APIKeyEnv and OpenAIKeyEnv name the environment variables holding the
// bearer key of an OpenAI-compatible server, the first set wins; with
// neither, requests carry no Authorization header (llama.cpp, vLLM and
// TEI servers often need none).
const (
	APIKeyEnv    = "GLOSS_EMBED_API_KEY"
	OpenAIKeyEnv = "OPENAI_API_KEY"
)

// OpenAI embeds with an OpenAI-compatible POST /v1/embeddings (OpenAI,
// llama.cpp server, vLLM, TEI): request {"model": M, "input": [texts]},
// answer {"data": [{"embedding": [floats], "index": i}]}, placed by index,
// in batches of 96 texts.
type OpenAI struct{ *remote }

// NewOpenAI returns the embedder of model at baseURL ("" means
// DefaultOpenAIURL; a URL ending in /v1 is accepted too) with bearer key
// apiKey ("" means $GLOSS_EMBED_API_KEY, else $OPENAI_API_KEY). Its model
// id is "openai:" + model. It fails on a malformed URL.
func NewOpenAI(model, baseURL, apiKey string) (*OpenAI, error) {
	if baseURL == "" {
		baseURL = DefaultOpenAIURL
	}
	if !strings.HasPrefix(baseURL, "http://") && !strings.HasPrefix(baseURL, "https://") {
		return nil, fmt.Errorf("openai embedder: URL %q must start with http:// or https://", baseURL)
	}
	endpoint := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1") + "/v1/embeddings"
	o := &OpenAI{newRemote("openai:"+model, endpoint, 96)}
	if apiKey == "" {
		apiKey = os.Getenv(APIKeyEnv)
	}
	if apiKey == "" {
		apiKey = os.Getenv(OpenAIKeyEnv)
	}
	if apiKey != "" {
		o.headers["Authorization"] = "Bearer " + apiKey
	}
	o.call = func(ctx context.Context, texts []string) ([][]float32, error) {
		var resp struct {
			Data []struct {
				Embedding []float32 `json:"embedding"`
				Index     int       `json:"index"`
			} `json:"data"`
		}
		req := map[string]any{"model": model, "input": texts}
		if err := o.post(ctx, req, &resp); err != nil {
			return nil, fmt.Errorf("openai embeddings: %w", err)
		}
		if len(resp.Data) != len(texts) {
			return nil, fmt.Errorf("openai embeddings: %s: %s returned %d embeddings for %d inputs", o.model, o.endpoint, len(resp.Data), len(texts))
		}
		out := make([][]float32, len(texts))
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
				return nil, fmt.Errorf("openai embeddings: %s: %s returned a bad or repeated index %d", o.model, o.endpoint, d.Index)
			}
			out[d.Index] = d.Embedding
		}
		return out, nil
	}
	return o, nil
}
