package memory

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// An open document over the size limit is not parsed on every change
// (issue 11: a 1.2 MB generated file blocked hover for seconds).
func TestOversizedDocumentNotParsed(t *testing.T) {
	home := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/big\n", "big.go": "package big\n"})
	w, err := Open(repo, Options{Home: home, MaxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	src := []byte("package big\n\n" + strings.Repeat("func F() {}\n", 200))
	r := w.ResolveDocumentCached(repo+"/big.go", src, &src)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "limit") {
		t.Fatalf("resolution of a %d-byte document with a 1000-byte limit: %v, want the size error", len(src), r.Err)
	}
}
