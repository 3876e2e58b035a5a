package memory

import (
	"context"
	"fmt"

	"github.com/gloss-dev/gloss/index"
)

// WarmText loads the memory text index (index.BM25Text) in memory, from
// which the text ranker then answers every search (MaxScore over
// in-memory postings: issue #15) and to which every write applies; the
// daemon calls it once after its warm-up check. A process without a
// daemon does not: its single search reads the query terms' part of the
// index's base on disk. It returns the error of opening, rebuilding or
// reading the index.
func (w *Workspace) WarmText(ctx context.Context) error {
	d, err := w.searchIndex() // rebuilt from the store when out of step
	if err != nil {
		return err
	}
	t, ok := d.(*index.BM25Text)
	if !ok {
		return fmt.Errorf("full-text index of %T cannot be loaded", d)
	}
	return t.Load()
}
