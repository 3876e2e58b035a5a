package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
)

// ImportGitInput is the input of the import_git tool.
type ImportGitInput struct {
	Since          string `json:"since,omitempty" jsonschema:"only commits after this date (YYYY-MM-DD) or revision"`
	Limit          int    `json:"limit,omitempty" jsonschema:"read at most this many first-parent commits, newest first (default all)"`
	Paths          string `json:"paths,omitempty" jsonschema:"only files matching this glob (** for any directories) or below this directory, relative to the workspace root"`
	Merges         bool   `json:"merges,omitempty" jsonschema:"import merge commits too (default false)"`
	MaxDefinitions int    `json:"max_definitions,omitempty" jsonschema:"skip commits that change more definitions than this (default 25)"`
}

// addImportGit registers import_git.
func (s *Server) addImportGit() {
	addTool(s, &sdk.Tool{Name: "import_git", Annotations: additive("Import git history", true),
		Description: "Turn the repository's git history into memories: one per commit, anchored to the definitions it changed, titled by its subject, " +
			"stale when the code changed again later. Skips merges, bots, routine and formatting-only commits. Safe to call again: only new commits are imported. " +
			"Call it once on a repository without memories, before asking for context."},
		s.importGit)
}

func (s *Server) importGit(ctx context.Context, _ *sdk.CallToolRequest, in ImportGitInput) (*sdk.CallToolResult, api.ImportGitResult, error) {
	res, err := s.impl.ImportGit(ctx, api.ImportGitArgs(in))
	if err != nil {
		return nil, api.ImportGitResult{}, toolError(err)
	}
	return nil, res, nil
}
