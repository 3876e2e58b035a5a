package memory

import (
	"strings"
	"testing"
)

// A filter on an unknown memory type is an error naming the types, not a
// search that silently finds nothing (gloss search --type bogus).
func TestFilterValidatesType(t *testing.T) {
	if err := (Filter{Type: "bogus"}).Validate(); err == nil || !strings.Contains(err.Error(), "unknown memory type \"bogus\"") {
		t.Fatalf("Validate(type bogus) = %v", err)
	}
	for _, typ := range append([]string{""}, Types...) {
		if err := (Filter{Type: typ}).Validate(); err != nil {
			t.Errorf("Validate(type %q) = %v", typ, err)
		}
	}
}
