// Package index finds and stores the code gloss anchors memories to.
//
// It walks a workspace (gitignore-aware, size and content limits),
// parses each file with tree-sitter (gotreesitter, pure Go) through a
// per-language registry (Go, TypeScript/TSX, JavaScript, Python), and
// extracts definitions with their SCIP symbols (package scip), ranges,
// doc comments and hashes of their normalized tokens (header, body,
// whole), plus syntactic call and containment edges.
//
// Store is the Pebble store of record of one workspace and the only owner
// of its keyspace: the symbol graph (files, definitions, symbol, name and
// body-hash indexes, call and containment edges) and, through a typed API
// of opaque records (MemoryBatch, Memory, Memories, MemoryIDsAt), the
// memories of package memory. Derived indexes (FullText, Bluge BM25) sit
// behind the Derived interface: updated on writes, rebuilt from the store,
// searched.
//
// Indexer.Run brings the store up to date with the working tree
// incrementally (files keyed by content hash; unchanged files are never
// re-parsed); Reparse re-parses one edited document reusing its previous
// syntax tree.
package index
