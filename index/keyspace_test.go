package index

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestKeyPrefixesDistinct guards the Pebble keyspace: two keyspaces with
// one prefix read each other's records (a forgotten memory's tombstone
// decoded as a file's metadata, say). Add every new prefix here.
func TestKeyPrefixesDistinct(t *testing.T) {
	prefixes := map[string]string{
		"prefixMeta": prefixMeta, "prefixFile": prefixFile, "prefixFileMeta": prefixFileMeta,
		"prefixSymbol": prefixSymbol, "prefixBody": prefixBody, "prefixName": prefixName,
		"prefixRef": prefixRef, "prefixContains": prefixContains, "prefixImport": prefixImport,
		"prefixMemory": prefixMemory, "prefixAnchor": prefixAnchor, "prefixHidden": prefixHidden,
		"prefixForgotten": prefixForgotten, "prefixSummary": prefixSummary,
		"prefixCheckState": prefixCheckState, "prefixImportMark": prefixImportMark,
		"prefixRelation": prefixRelation,
		"prefixAccess":   prefixAccess,
		"prefixTokens":   prefixTokens,
	}
	seen := map[string]string{}
	for name, p := range prefixes {
		if len(p) != 1 {
			t.Errorf("%s is %q: a keyspace is one byte (keyspaceSpans)", name, p)
		}
		if other, ok := seen[p]; ok {
			t.Errorf("%s and %s share the key prefix %q", name, other, p)
		}
		seen[p] = name
	}
}

// Every table a flush or a compaction writes holds the keys of one
// keyspace (keyspaceSpans): memory keyspaces written between index
// keyspaces do not share tables with them, in level 0 or below.
func TestTablesHoldOneKeyspace(t *testing.T) {
	st, err := OpenStoreBulk(t.TempDir(), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db := st.pdb()
	val := make([]byte, 700) // past valueSeparationMin: separated into blob files too
	for round := range 3 {
		b := db.NewBatch()
		for _, p := range []string{prefixAnchor, prefixFile, prefixMemory, prefixName, prefixSummary, prefixTokens} {
			for i := range 200 {
				_ = b.Set(Key(p, fmt.Sprintf("%d-%04d", round, i)), val, nil)
			}
		}
		if err := b.Commit(pebble.Sync); err != nil {
			t.Fatal(err)
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Compact(t.Context(), []byte{0}, []byte{0xff}, true); err != nil {
		t.Fatal(err)
	}
	levels, err := db.SSTables()
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	for level, ts := range levels {
		for _, tb := range ts {
			tables++
			if lo, hi := tb.Smallest.UserKey, tb.Largest.UserKey; lo[0] != hi[0] {
				t.Errorf("level %d table %d holds keys from %q to %q", level, tb.FileNum, lo, hi)
			}
		}
	}
	if tables < 6 {
		t.Errorf("%d tables for 6 keyspaces", tables)
	}
}

func TestKeyspaceSpans(t *testing.T) {
	for _, c := range []struct {
		start, end string
	}{
		{"", ""},
		{"m\x00id", "n"},
		{"a", "b"},
		{"\xff\x00", ""},
	} {
		_, end, err := keyspaceSpans([]byte(c.start))
		if err != nil || string(end) != c.end {
			t.Errorf("keyspaceSpans(%q) = %q, %v; want %q", c.start, end, err, c.end)
		}
	}
}
