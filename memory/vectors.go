package memory

import (
	"context"

	"github.com/gloss-dev/gloss/index"
)

// VectorSearch returns the memories nearest to query in the vector index
// (cosine similarity, best first, ties by id), at most limit. With no
// vector index configured it returns nil, nil.
func (w *Workspace) VectorSearch(ctx context.Context, query string, limit int) ([]index.Scored, error) {
	return nil, nil
}
