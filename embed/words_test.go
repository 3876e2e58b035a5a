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

// TestStemMemoSameAsStemmer checks that word, memoized or not, is the
// Snowball English stemmer for the words it keeps, and drops stop words,
// digits, one-letter fields and fields whose stem is one letter, from
// any number of goroutines.
func TestStemMemoSameAsStemmer(t *testing.T) {
	words := strings.Fields("retries capped running organizational generously flushing caches cached cache hoping dying skis idly")
	for _, f := range []string{"the", "a", "x", "42", "is", "its", "ss", "being"} {
		for range 2 {
			if got, want := word(f), wordOf(f); got != want {
				t.Errorf("word(%q) = %q, unmemoized %q", f, got, want)
			}
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 3; round++ {
				for _, w := range words {
					env := snowballstem.NewEnv(w)
					english.Stem(env)
					if got, want := word(w), env.Current(); got != want {
						t.Errorf("word(%q) = %q, want %q", w, got, want)
					}
				}
			}
		}()
	}
	wg.Wait()
}
