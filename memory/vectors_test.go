package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// shopMemories are the fixture's notes, by key: anchored symbol, title,
// body.
var shopMemories = map[string][3]string{
	"retrycap":  {"maxRetries", "Retry caps", "Charges are retried three times at most; the payment gateway bans clients that hammer it."},
	"backoff":   {"backoffDelay", "Backoff doubles", "Each wait is twice the previous one, up to the ceiling, so the upstream window can recover."},
	"quota":     {"rateLimiter", "Outgoing quota", "Requests above the quota are queued, not dropped."},
	"ttl":       {"evictExpired", "Prices expire after five minutes", "evictExpired runs every minute; the TTL is five minutes."},
	"invalid":   {"invalidatePrice", "Admin edits must invalidate", "Changing a product must drop its cached price or pages show the old one."},
	"migrate":   {"runMigrations", "Migrations run at startup", "Never run migrations by hand; the binary applies them in order before serving."},
	"pool":      {"openDB", "Pool size is 20", "Above 20 the managed Postgres refuses new clients."},
	"tx":        {"withTx", "Always use withTx for multi-row writes", "Half-finished writes corrupted orders before; withTx reverts everything if fn errors."},
	"bcrypt":    {"hashPassword", "bcrypt cost 12", "Lower costs fail the security review."},
	"session":   {"sessionExpiry", "Sessions last 24 hours", "Product wanted people to re-authenticate every day."},
	"reserve":   {"reserveStock", "Reservations lapse after 15 minutes", "Unpaid checkouts give their units back automatically."},
	"refund":    {"cancelOrder", "Cancel refunds first", "Refund before releasing the items, so a failed refund leaves the order intact."},
	"receipt":   {"sendReceipt", "Receipts use the receipt template", "Marketing owns the template; do not inline HTML."},
	"ship":      {"notifyShipping", "Shipping mails are async", "The courier webhook calls notifyShipping; it must not block the webhook."},
	"checkout":  {"checkout", "Checkout order matters", "Validate the cart, then reserve, then charge: charging first caused refunds."},
	"migrateV2": {"runMigrations", "Migration files are numbered", "Name new files NNN_description.sql; gaps are allowed."},
}

// shopParaphrases are questions that share no word stem with their
// target note (title, body, symbol, anchored code), only with the code's
// comments: BM25 cannot find them.
var shopParaphrases = map[string]string{
	"maximum attempts throttling":                       "retrycap",
	"how long before cached entries are removed":        "ttl",
	"database schema upgrades at boot":                  "migrate",
	"undo partial changes on failure":                   "tx",
	"how long does a user stay signed in":               "session",
	"inventory kept aside for buyers":                   "reserve",
	"credentials stored safely":                         "bcrypt",
	"email the customer when the parcel leaves":         "ship",
	"too many concurrent queries":                       "pool",
	"outdated amounts on listing after catalog updates": "invalid",
}

// shopWorkspace indexes the fixture and stores its notes; it returns the
// workspace and the memory ids by key.
func shopWorkspace(t *testing.T) (*memory.Workspace, map[string]string) {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir("testdata/vectors")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/vectors", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	w, _ := indexedWorkspace(t, files)
	ids := map[string]string{}
	for key, m := range shopMemories {
		mem, err := w.Remember(context.Background(), memory.RememberRequest{Symbol: m[0], Title: m[1], Text: m[2]})
		if err != nil {
			t.Fatalf("remember %s: %v", key, err)
		}
		ids[key] = mem.ID
	}
	return w, ids
}

// TestVectorSearchParaphrases is the sanity evaluation of the built-in
// embedder: recall@5 of paraphrased questions, vectors against BM25.
func TestVectorSearchParaphrases(t *testing.T) {
	w, ids := shopWorkspace(t)
	ctx := context.Background()
	var vecHits, bm25Hits int
	for q, key := range shopParaphrases {
		vs, err := w.VectorSearch(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range vs {
			found = found || h.ID == ids[key]
		}
		if found {
			vecHits++
		} else {
			t.Logf("vectors miss %q (want %s)", q, key)
		}
		hits, err := w.Search(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Memory.ID == ids[key] {
				bm25Hits++
			}
		}
	}
	n := float64(len(shopParaphrases))
	vecRecall, bm25Recall := float64(vecHits)/n, float64(bm25Hits)/n
	t.Logf("paraphrase recall@5: vectors %.2f, BM25 %.2f (%d queries)", vecRecall, bm25Recall, len(shopParaphrases))
	if vecRecall < 0.8 || vecRecall < 2*bm25Recall {
		t.Fatalf("recall@5 of paraphrases: vectors %.2f, BM25 %.2f; want vectors ≥ 0.8 and ≥ 2× BM25", vecRecall, bm25Recall)
	}
}

// TestNearDuplicateThreshold measures the cosine of rewordings of a note
// (near-duplicates) and of different notes on related code, and checks
// that NearDuplicateCosine separates them.
func TestNearDuplicateThreshold(t *testing.T) {
	w, ids := shopWorkspace(t)
	ctx := context.Background()
	dups := map[string]string{
		"retrycap": "Retry cap: charges are retried at most three times because the payment gateway bans clients that hammer it",
		"pool":     "The pool size is 20: above that the managed Postgres refuses new clients",
		"session":  "Sessions last 24 hours since product wanted people to re-authenticate every day",
		"refund":   "Refund first when cancelling: release the items only after the refund, so a failed refund leaves the order intact",
	}
	cosineOf := func(text, id string) float64 {
		hits, err := w.NearestMemories(ctx, text, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.ID == id {
				return h.Score
			}
		}
		return 0
	}
	for key, text := range dups {
		c := cosineOf(text, ids[key])
		t.Logf("rewording of %s: cosine %.3f", key, c)
		if c < memory.NearDuplicateCosine {
			t.Errorf("rewording of %s: cosine %.3f < NearDuplicateCosine %.2f", key, c, memory.NearDuplicateCosine)
		}
	}
	// Different notes, some on the same code.
	for _, pair := range [][2]string{{"backoff", "retrycap"}, {"quota", "retrycap"}, {"migrateV2", "migrate"}, {"ttl", "invalid"}, {"checkout", "reserve"}, {"refund", "checkout"}} {
		m := shopMemories[pair[0]]
		c := cosineOf(m[1]+"\n"+m[2], ids[pair[1]])
		t.Logf("%s vs %s: cosine %.3f", pair[0], pair[1], c)
		if c >= memory.NearDuplicateCosine {
			t.Errorf("different notes %s and %s: cosine %.3f ≥ NearDuplicateCosine %.2f", pair[0], pair[1], c, memory.NearDuplicateCosine)
		}
	}
}

// NearDuplicates reports the vector similarity of rewordings (the
// near-duplicate report of remember), also where the texts share few
// terms.
func TestNearDuplicatesVector(t *testing.T) {
	w, ids := shopWorkspace(t)
	ctx := context.Background()
	text := "Retry cap: charges are retried at most three times because the payment gateway bans clients that hammer it"
	dups, err := w.NearDuplicates(ctx, &memory.Memory{Title: "Retry cap", Body: text})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range dups {
		t.Logf("%s: text %.3f, vector %.3f", d.ID, d.Similarity, d.VectorSimilarity)
		if d.ID == ids["retrycap"] {
			found = true
			if d.VectorSimilarity < memory.NearDuplicateCosine {
				t.Errorf("rewording: vector similarity %.3f < %.2f", d.VectorSimilarity, memory.NearDuplicateCosine)
			}
		}
	}
	if !found {
		t.Errorf("rewording of retrycap not reported: %+v", dups)
	}
}
