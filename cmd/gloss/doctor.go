package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/memory"
)

// doctorCmd is `gloss doctor`: check the workspace's store, back it up and
// repair what can be repaired (memory.Doctor). It exits 1 when problems
// remain.
func doctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the store, back it up, repair what can be repaired and rebuild the search index",
		Long: `Check this workspace's store and repair what can safely be repaired.

The Pebble store is backed up first (under <data dir>/backups/), then a lost
manifest marker is recreated, every memory is decoded and the derived search
index is rebuilt. The store is never deleted. Stop a daemon serving the
workspace first (gloss daemon stop).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := memory.FindRoot(g.dir)
			if err != nil {
				return err
			}
			if c, err := daemon.Dial(daemon.Target{Root: root, Version: version}, daemon.VerbStatus); err == nil {
				c.Close()
				return fmt.Errorf("a gloss daemon serves %s and holds its store: stop it first (gloss daemon stop)", root)
			}
			r, err := memory.Doctor(g.dir, memory.Options{MaxFileSize: g.maxSize, Warn: func(err error) {
				fmt.Fprintln(os.Stderr, "gloss: warning:", err)
			}})
			if err != nil {
				return err
			}
			if g.json {
				if err := printJSON(cmd.OutOrStdout(), r); err != nil {
					return err
				}
			} else {
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "workspace: %s (project %s)\n", r.Root, r.ProjectID)
				fmt.Fprintf(out, "store:     %s\n", r.Store.Dir)
				if r.Store.Backup != "" {
					fmt.Fprintf(out, "backup:    %s\n", r.Store.Backup)
				}
				for _, s := range r.Store.Repairs {
					fmt.Fprintf(out, "repaired:  %s\n", s)
				}
				fmt.Fprintf(out, "memories:  %d readable, %d corrupt\n", r.Memories, len(r.Corrupt))
				if r.SearchRebuilt {
					fmt.Fprintln(out, "search:    index rebuilt")
				}
				for _, p := range r.Problems {
					fmt.Fprintf(out, "PROBLEM:   %s\n", p)
				}
				if r.OK() {
					fmt.Fprintln(out, "ok")
				}
			}
			if !r.OK() {
				return exitError{code: 1}
			}
			return nil
		},
	}
}
