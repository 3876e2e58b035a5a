package main

import (
	"fmt"
	"io"

	"github.com/gloss-dev/gloss/memory"
)

// printProblems prints one line per memory file that could not be loaded.
func printProblems(w io.Writer, probs []memory.FileProblem) {
	for _, p := range probs {
		fmt.Fprintf(w, "warning: %s\n", p)
	}
}

// printSync prints what loading the memory files did, when anything.
func printSync(w io.Writer, r memory.SyncResult) {
	if len(r.Loaded)+len(r.Hidden)+len(r.Written) > 0 {
		fmt.Fprintf(w, "  memory files: %d loaded, %d hidden (file gone), %d written\n", len(r.Loaded), len(r.Hidden), len(r.Written))
	}
	printProblems(w, r.Problems)
}
