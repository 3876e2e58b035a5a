// Package embed turns text into vectors for gloss's vector index: an
// Embedder interface and its providers (the built-in workspace model,
// model2vec static models, Ollama, OpenAI-compatible servers).
package embed

import "context"

// Embedder turns texts into dense vectors.
//
// Vectors of different models are never compared: every stored vector
// carries Model() and Dim(), and an index whose model differs from the
// configured embedder's is re-embedded.
type Embedder interface {
	// Model returns the model id, stable across processes for the same
	// weights, e.g. "builtin:ppmi-svd@<hash>", "ollama:nomic-embed-text",
	// "openai:text-embedding-3-small", "model2vec:potion-base-8M@<hash>".
	Model() string
	// Dim returns the length of every vector Embed returns.
	Dim() int
	// Embed returns one L2-normalised vector of length Dim() per text, in
	// the order of texts. It returns an error (and no vectors) when the
	// provider fails or ctx ends.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
