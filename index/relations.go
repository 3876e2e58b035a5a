package index

// The relation keyspace: a reverse index of the relations memories hold
// (package memory stores each relation in its source memory's record):
//
//	l\0<target id>\0<kind>\0<source id>  → ""
//
// so that "which memories supersede (or conflict with, …) this one" is a
// prefix scan instead of a read of every record. Package memory keeps it
// in step with the records in the same batches (putMemory, deleteMemory).
const prefixRelation = "l"

// PutRelation records that memory source holds a relation of kind to
// memory target.
func (b *MemoryBatch) PutRelation(target, kind, source string) error {
	return b.b.Set(Key(prefixRelation, target, kind, source), nil, nil)
}

// DeleteRelation removes the entry PutRelation made (a no-op when there is
// none).
func (b *MemoryBatch) DeleteRelation(target, kind, source string) error {
	return b.b.Delete(Key(prefixRelation, target, kind, source), nil)
}

// Relations calls fn with every (target, kind, source) entry of the
// relation index, in target, kind, source order, reading keys only. An
// error from fn stops the scan and is returned.
func (s *Store) Relations(fn func(target, kind, source string) error) error {
	return Scan(s.pdb(), func(rest []string, _ []byte) error {
		if len(rest) == 3 {
			return fn(rest[0], rest[1], rest[2])
		}
		return nil
	}, prefixRelation)
}
