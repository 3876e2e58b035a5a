package embed

import (
	"fmt"
	"strings"
)

// Kinds of embedder a Spec names.
const (
	KindBuiltin   = "builtin"
	KindModel2Vec = "model2vec"
	KindOllama    = "ollama"
	KindOpenAI    = "openai"
	KindNone      = "none"
)

// EnvVar is the environment variable that selects the embedder (see
// ParseSpec); unset means the built-in model.
const EnvVar = "GLOSS_EMBEDDER"

// Spec is a parsed embedder selection.
type Spec struct {
	Kind  string // one of the Kind* constants
	Model string // model name (ollama, openai)
	URL   string // server base URL (ollama, openai); "" for the default
	Dir   string // model directory (model2vec)
}

// ParseSpec parses an embedder selection:
//
//	builtin (or "")           the model learned from the workspace
//	model2vec:/path/to/dir    a model2vec directory (model.safetensors + tokenizer.json)
//	ollama:MODEL[@URL]        Ollama /api/embed (URL default http://localhost:11434)
//	openai:MODEL[@URL]        an OpenAI-compatible /v1/embeddings (URL default https://api.openai.com)
//	none                      no vector index
//
// It returns an error naming the accepted forms for anything else.
func ParseSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "", KindBuiltin, KindNone:
		if rest != "" {
			break
		}
		if kind == "" {
			kind = KindBuiltin
		}
		return Spec{Kind: kind}, nil
	case KindModel2Vec:
		if rest != "" {
			return Spec{Kind: kind, Dir: rest}, nil
		}
	case KindOllama, KindOpenAI:
		model, url, _ := strings.Cut(rest, "@")
		if model != "" {
			return Spec{Kind: kind, Model: model, URL: strings.TrimRight(url, "/")}, nil
		}
	}
	return Spec{}, fmt.Errorf("embedder %q: want builtin, none, model2vec:DIR, ollama:MODEL[@URL] or openai:MODEL[@URL]", s)
}

// Remote reports whether the spec's embedder calls a server (embedding
// is then slow and may fail: indexes are re-embedded in the background).
func (s Spec) Remote() bool { return s.Kind == KindOllama || s.Kind == KindOpenAI }

// Open returns the embedder of a model2vec, ollama or openai spec. The
// built-in model is learned per workspace (package memory trains and
// loads it), so Open refuses builtin and none.
func Open(s Spec) (Embedder, error) {
	switch s.Kind {
	case KindModel2Vec:
		return LoadModel2Vec(s.Dir)
	case KindOllama:
		return NewOllama(s.Model, s.URL), nil
	case KindOpenAI:
		return NewOpenAI(s.Model, s.URL, "")
	}
	return nil, fmt.Errorf("embedder kind %q is not opened by embed.Open", s.Kind)
}
