package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
)

// ReviewInput is the input of the review tool.
type ReviewInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"list at most this many memories, most urgent first (default 20)"`
}

// defaultReviewLimit is review's limit when none is given.
const defaultReviewLimit = 20

// addLifecycle registers review.
func (s *Server) addLifecycle() {
	addTool(s, &sdk.Tool{Name: "review", Annotations: readOnly("Memories to review"),
		Description: "List the memories that need a look, most urgent first: expired, flagged as possibly wrong, conflicting, stale (the code changed), of low confidence (not verified for a long time), or unused. " +
			"Each comes with reason, detail, confidence and the one action to take: verify (still true), update (rewrite), forget, or relate (settle a conflict)."},
		s.review)
}

func (s *Server) review(ctx context.Context, _ *sdk.CallToolRequest, in ReviewInput) (*sdk.CallToolResult, api.ReviewResult, error) {
	if in.Limit <= 0 {
		in.Limit = defaultReviewLimit
	}
	res, err := s.impl.Review(ctx, api.ReviewArgs(in))
	if err != nil {
		return nil, api.ReviewResult{}, toolError(err)
	}
	return nil, res, nil
}
