package embed

import (
	"reflect"
	"testing"
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
