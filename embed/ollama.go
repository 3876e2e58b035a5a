package embed

import (
	"context"
	"fmt"
)

// DefaultOllamaURL is where Ollama listens by default.
const DefaultOllamaURL = "http://localhost:11434"

// Ollama embeds with an Ollama server's POST /api/embed
// (https://github.com/ollama/ollama/blob/main/docs/api.md): request
// {"model": M, "input": [texts]}, answer {"embeddings": [[floats]]}, in
// batches of 32 texts.
type Ollama struct{ *remote }

// NewOllama returns the Ollama embedder of model at baseURL ("" means
// DefaultOllamaURL). Its model id is "ollama:" + model. No request is
// made until Embed.
func NewOllama(model, baseURL string) *Ollama {
	if baseURL == "" {
		baseURL = DefaultOllamaURL
	}
	o := &Ollama{newRemote("ollama:"+model, baseURL+"/api/embed", 32)}
	o.call = func(ctx context.Context, texts []string) ([][]float32, error) {
		var resp struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		req := map[string]any{"model": model, "input": texts}
		if err := o.post(ctx, req, &resp); err != nil {
			return nil, fmt.Errorf("ollama embed: %w", err)
		}
		return resp.Embeddings, nil
	}
	return o
}
