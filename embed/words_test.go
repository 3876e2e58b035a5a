package embed

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

func TestWords(t *testing.T) {
	got := Words("The maxRetryCount caps retries; HTTPServer_v2 is 42 x")
	want := []string{"max", "retri", "count", "cap", "retri", "http", "server"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Words = %q, want %q", got, want)
	}
	if w := Words("the a of 123"); len(w) != 0 {
		t.Fatalf("Words of stop words and digits = %q, want none", w)
	}
}

// TestStemMemoSameAsStemmer checks that stem, memoized or not, is the
// Snowball English stemmer, from any number of goroutines.
func TestStemMemoSameAsStemmer(t *testing.T) {
	words := strings.Fields("retries capped running organizational generously flushing the caches cached cache hoping dying skis idly")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 3; round++ {
				for _, w := range words {
					env := snowballstem.NewEnv(w)
					english.Stem(env)
					if got, want := stem(w), env.Current(); got != want {
						t.Errorf("stem(%q) = %q, want %q", w, got, want)
					}
				}
			}
		}()
	}
	wg.Wait()
}
