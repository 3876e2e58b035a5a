package index

import "testing"

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
		if other, ok := seen[p]; ok {
			t.Errorf("%s and %s share the key prefix %q", name, other, p)
		}
		seen[p] = name
	}
}
