package memory

import (
	"encoding/json"
	"testing"
)

// TestDecodedCache: a cached record is returned as a private copy (changing
// it, or appending to its slices, changes neither the cache nor another
// copy), and changed record bytes are decoded again.
func TestDecodedCache(t *testing.T) {
	m := &Memory{ID: "A", Title: "t", Tags: make([]string, 1, 8), Anchors: []Anchor{{Path: "a.go", Tokens: make([]string, 2, 8)}}}
	raw, _ := json.Marshal(m)
	c := newDecodedCache()
	c.Put("A", raw, m.private())
	a, aok := c.Get("A", raw)
	b, bok := c.Get("A", raw)
	if !aok || !bok || a == b {
		t.Fatalf("get = %p %p", a, b)
	}
	a.Anchors[0].Path = "changed.go"
	a.Title = "changed"
	a.Tags = append(a.Tags, "x")
	b.Tags = append(b.Tags, "y")
	a.Anchors[0].Tokens = append(a.Anchors[0].Tokens, "tok")
	if a.Tags[1] != "x" || b.Tags[1] != "y" {
		t.Fatalf("appends alias: %v %v", a.Tags, b.Tags)
	}
	again, _ := c.Get("A", raw)
	if again.Title != "t" || again.Anchors[0].Path != "a.go" || len(again.Tags) != 1 || len(again.Anchors[0].Tokens) != 2 {
		t.Fatalf("the cache was changed through a copy: %+v", again)
	}
	m.Title = "new"
	raw2, _ := json.Marshal(m)
	if _, ok := c.Get("A", raw2); ok {
		t.Fatal("changed bytes were served from the cache")
	}
}
