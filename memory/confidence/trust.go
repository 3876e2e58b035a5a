package confidence

// sourceTrust are the ranking weights of memory sources: what a person
// wrote outranks what an agent wrote, which outranks what was imported
// from files and from git history (a commit message says why code
// changed then, not what a reader must know now), which outranks what was
// inferred.
var sourceTrust = map[string]float64{
	"user":          1,
	"agent":         0.9,
	"imported_file": 0.8,
	"imported_git":  0.6,
	"inferred":      0.5,
}

// SourceTrust returns the ranking multiplier of a memory source
// (memory.Memory.Source), in (0, 1]: 1 for user (and for "" or an unknown
// source, as records written before sources were recorded are the
// user's), 0.9 agent, 0.8 imported_file, 0.6 imported_git, 0.5
// inferred. Search and context multiply scores by it, so an imported
// memory ranks below a hand-written one of similar relevance; Of takes it
// as the trust part of confidence.
func SourceTrust(source string) float64 {
	if t, ok := sourceTrust[source]; ok {
		return t
	}
	return 1
}
