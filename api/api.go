// Package api is gloss's command surface: one Go interface, Interface,
// with a typed argument and result struct per command, served through
// every door — LSP workspace/executeCommand (package lsp), the CLI
// (cmd/gloss), the daemon socket (Client) and MCP.
//
// The design follows gopls' protocol/command package: Interface is
// implemented once over the engine (Engine, over memory.Workspace) and once
// as a client of a remote server (Client). One table, Commands, maps the
// wire names ("gloss.remember") to the interface methods; Dispatch decodes
// a JSON argument and calls the method, and Client encodes arguments and
// decodes results through the same entries, so a command is declared in
// one place. docs/commands.md documents every command's JSON.
//
// Lines: Location and Range are LSP's (0-based lines, end exclusive);
// every memory.View in a result has 1-based inclusive lines.
package api

import (
	"context"

	"github.com/gloss-dev/gloss/memory"
)

// Interface is the command surface. Every method may return an *Error with
// code CodeInvalidParams for bad arguments (unknown id, path outside the
// workspace, malformed range); other errors are internal failures.
type Interface interface {
	// Remember stores a new memory anchored at args' symbol or lines.
	Remember(ctx context.Context, args RememberArgs) (memory.View, error)
	// RememberBatch stores several memories in one durable write; one
	// invalid item does not keep the others from being stored.
	RememberBatch(ctx context.Context, args RememberBatchArgs) (RememberBatchResult, error)
	// MemoriesAt returns the memories with an anchor overlapping the
	// location (the whole document when Range is nil), resolved against
	// the open document's text, most confident and newest first.
	MemoriesAt(ctx context.Context, args Location) (MemoriesResult, error)
	// MemoriesForSymbol returns the memories anchored to a SCIP symbol.
	MemoriesForSymbol(ctx context.Context, args SymbolArgs) (MemoriesResult, error)
	// Search runs a full-text search over memories.
	Search(ctx context.Context, args SearchArgs) (SearchResult, error)
	// Show returns one memory with its anchors and diffs.
	Show(ctx context.Context, args ShowArgs) (ShowResult, error)
	// Update changes a memory's text, title, type, tags or place.
	Update(ctx context.Context, args UpdateArgs) (memory.View, error)
	// Verify accepts the current code as the memory's new truth.
	Verify(ctx context.Context, args IDArgs) (memory.View, error)
	// Forget deletes a memory.
	Forget(ctx context.Context, args IDArgs) (ForgetResult, error)
	// Restore undoes a forget (within memory.RestoreWindow).
	Restore(ctx context.Context, args IDArgs) (memory.View, error)
	// Check rescans the working trees and re-resolves anchors.
	Check(ctx context.Context, args NoArgs) (CheckResult, error)
	// List returns the memories with their last known statuses, ordered
	// by place, all of them or one page at a time.
	List(ctx context.Context, args ListArgs) (ListResult, error)
	// Status counts memories, stale memories, files and symbols.
	Status(ctx context.Context, args NoArgs) (StatusResult, error)
	// Index brings the symbol graphs up to date with the working trees.
	Index(ctx context.Context, args NoArgs) (IndexResults, error)
	// Impact returns the definitions that call or contain a symbol
	// (transitively, up to a depth) and the memories anchored to them.
	Impact(ctx context.Context, args ImpactArgs) (ImpactResult, error)
	// Context returns a briefing for a task: the memories of the files
	// and symbols it touches and the best matches of its words, packed
	// into a token budget.
	Context(ctx context.Context, args ContextArgs) (ContextResult, error)
	// Share makes a memory a project memory (its Markdown file is written).
	Share(ctx context.Context, args IDArgs) (memory.View, error)
	// Unshare makes a project memory personal (its file is removed).
	Unshare(ctx context.Context, args IDArgs) (memory.View, error)
	// Export renders memories as JSON lines, memory files or a briefing.
	Export(ctx context.Context, args ExportArgs) (ExportResult, error)
	// Import adds the memories of a file or directory, skipping known ids.
	Import(ctx context.Context, args ImportArgs) (ImportResult, error)
	// ForgetAll deletes every memory (of a scope).
	ForgetAll(ctx context.Context, args ForgetAllArgs) (ForgetAllResult, error)
	// SuggestAnchors offers the definitions and files a memory's text
	// mentions as anchors.
	SuggestAnchors(ctx context.Context, args SuggestAnchorsArgs) (SuggestAnchorsResult, error)
	// ImportGit turns the first-parent git history into memories anchored
	// to the definitions each commit changed (one per commit, idempotent).
	ImportGit(ctx context.Context, args ImportGitArgs) (ImportGitResult, error)

	// Relate adds (or removes) a relation between two memories.
	Relate(ctx context.Context, args RelateArgs) (RelateResult, error)
	// Why returns the memories behind a symbol and their relations, as
	// Markdown and as a Mermaid graph.
	Why(ctx context.Context, args WhyArgs) (WhyResult, error)
	// Flag marks a memory as wrong (needs review), with a reason.
	Flag(ctx context.Context, args FlagArgs) (memory.View, error)
	// Review lists the memories that need a look (stale, low confidence,
	// flagged, conflicting, expired, unused), each with the action to take.
	Review(ctx context.Context, args ReviewArgs) (ReviewResult, error)
	// Prune forgets expired memories and unused ones of low confidence
	// (DryRun lists them); project memories only with Yes.
	Prune(ctx context.Context, args PruneArgs) (PruneResult, error)
	// VerifyAll re-verifies the memories under a path pattern and/or all
	// fresh ones.
	VerifyAll(ctx context.Context, args VerifyAllArgs) (VerifyAllResult, error)
}

// The commands of Interface, by wire name. Writes marks commands that
// change the store: a door runs them in the order received (the LSP
// server on its read loop) so a later request sees their effect.
var (
	Remember          = def("gloss.remember", Interface.Remember, info{verb: "remember", writes: true})
	RememberBatch     = def("gloss.rememberBatch", Interface.RememberBatch, info{writes: true})
	MemoriesAt        = def("gloss.memoriesAt", Interface.MemoriesAt, info{verb: "at"})
	ShowMemories      = def("gloss.showMemories", Interface.MemoriesAt, info{}) // the code lens command
	MemoriesForSymbol = def("gloss.memoriesForSymbol", Interface.MemoriesForSymbol, info{verb: "memories-for-symbol"})
	Search            = def("gloss.search", Interface.Search, info{verb: "search"})
	Show              = def("gloss.show", Interface.Show, info{verb: "show"})
	Update            = def("gloss.update", Interface.Update, info{writes: true})
	Verify            = def("gloss.verify", Interface.Verify, info{verb: "verify", writes: true})
	Forget            = def("gloss.forget", Interface.Forget, info{verb: "forget", writes: true})
	Restore           = def("gloss.restore", Interface.Restore, info{verb: "restore", writes: true, doc: "Restore a memory forgotten in the last 7 days"})
	Check             = def("gloss.check", Interface.Check, info{verb: "check", optional: true})
	List              = def("gloss.list", Interface.List, info{verb: "list", optional: true})
	Status            = def("gloss.status", Interface.Status, info{verb: "status", optional: true})
	Index             = def("gloss.index", Interface.Index, info{verb: "index", optional: true})
	Impact            = def("gloss.impact", Interface.Impact, info{verb: "impact", doc: "Definitions that call or contain a symbol, and their memories"})
	Context           = def("gloss.context", Interface.Context, info{verb: "context", doc: "A briefing for a task: memories of its files, symbols and words, within a token budget"})
	Share             = def("gloss.share", Interface.Share, info{verb: "share", writes: true, doc: "Make a memory a project memory (writes .gloss/memories/ID.md to commit)"})
	Unshare           = def("gloss.unshare", Interface.Unshare, info{verb: "unshare", writes: true, doc: "Make a project memory personal (removes its file)"})
	Export            = def("gloss.export", Interface.Export, info{verb: "export", optional: true})
	Import            = def("gloss.import", Interface.Import, info{verb: "import", writes: true})
	ForgetAll         = def("gloss.forgetAll", Interface.ForgetAll, info{writes: true})
	SuggestAnchors    = def("gloss.suggestAnchors", Interface.SuggestAnchors, info{verb: "suggest-anchors", doc: "Definitions and files a memory's text mentions, offered as anchors"})
	// ImportGit is not marked writes: it runs for minutes, so a door runs
	// it in the background; it takes the store's write lock per batch.
	ImportGit = def("gloss.importGit", Interface.ImportGit, info{optional: true})

	// Relations, why and flag (lifecycle).
	Relate    = def("gloss.relate", Interface.Relate, info{verb: "relate", writes: true, doc: "Relate two memories: ID supersedes|conflicts_with|required_with|validates|derived_from TARGET"})
	Why       = def("gloss.why", Interface.Why, info{verb: "why", doc: "The decisions and gotchas behind a symbol, oldest first, as Markdown (or --mermaid)"})
	Flag      = def("gloss.flag", Interface.Flag, info{verb: "flag", writes: true, doc: "Flag a memory as wrong (needs review) with an optional --reason"})
	Review    = def("gloss.review", Interface.Review, info{verb: "review", optional: true})
	Prune     = def("gloss.prune", Interface.Prune, info{verb: "prune", writes: true, optional: true})
	VerifyAll = def("gloss.verifyAll", Interface.VerifyAll, info{writes: true})
)

// Commands lists every command in the order docs/commands.md does.
var Commands = []Command{
	Remember, RememberBatch, MemoriesAt, ShowMemories, MemoriesForSymbol, Search, Show,
	Update, Verify, Forget, Restore, Check, List, Status, Index, Impact, Context,
	Share, Unshare, Export, Import, ForgetAll, SuggestAnchors,
	ImportGit,
	Relate, Why, Flag,
	Review, Prune, VerifyAll,
}

// Names returns the wire names of Commands (the LSP server's
// executeCommandProvider.commands).
func Names() []string {
	out := make([]string, len(Commands))
	for i, c := range Commands {
		out[i] = c.Name()
	}
	return out
}

// Lookup returns the command with wire name name, or nil.
func Lookup(name string) Command {
	for _, c := range Commands {
		if c.Name() == name {
			return c
		}
	}
	return nil
}
