package api

import (
	"context"
	"errors"

	"github.com/gloss-dev/gloss/memory/importgit"
)

// ImportGitArgs are the arguments of gloss.importGit (all optional):
// Since is a date (YYYY-MM-DD or RFC 3339) or a revision after which
// commits are read; Limit the most first-parent commits read, newest
// first; Paths a glob or directory (workspace-relative) the files must
// match; Merges imports merge commits too; MaxDefinitions skips commits
// changing more definitions (default importgit.DefaultMaxDefinitions).
type ImportGitArgs struct {
	Since          string `json:"since,omitempty"`
	Limit          int    `json:"limit,omitempty"`
	Paths          string `json:"paths,omitempty"`
	Merges         bool   `json:"merges,omitempty"`
	MaxDefinitions int    `json:"max_definitions,omitempty"`
}

// ImportGitResult is the result of gloss.importGit (importgit.Result):
// commits examined, memories created, commits skipped by reason.
type ImportGitResult = importgit.Result

// Progress receives the progress of a long command: done of total units
// (commits for gloss.importGit, files to parse for gloss.index).
// Engine.Progress holds it.
type Progress func(done, total int)

// ImportGit implements Interface: into the first workspace folder. It
// reports the commits read to e.Progress, when set.
func (e *Engine) ImportGit(ctx context.Context, a ImportGitArgs) (ImportGitResult, error) {
	ws := e.Host.Workspaces()
	if len(ws) == 0 {
		return ImportGitResult{}, invalid("%s: no workspace folder is open", ImportGit.name)
	}
	opts := importgit.Options{Since: a.Since, Limit: a.Limit, Paths: a.Paths, Merges: a.Merges, MaxDefinitions: a.MaxDefinitions, Progress: e.Progress}
	res, err := importgit.Run(ctx, ws[0], opts)
	if res.Created > 0 {
		e.Host.Changed(ws[0], nil, true)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return res, invalid("%s: %v", ImportGit.name, err)
	}
	return res, err
}
