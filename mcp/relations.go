package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
)

// RelateInput is the input of the relate tool (api.RelateArgs).
type RelateInput struct {
	ID       string `json:"id" jsonschema:"the memory that holds the relation (id or unique prefix of at least 6 characters)"`
	Relation string `json:"relation" jsonschema:"supersedes (ID replaces TARGET, which is then hidden from editors and ranked lower), conflicts_with, required_with, validates or derived_from"`
	Target   string `json:"target" jsonschema:"the other memory (id or unique prefix)"`
	Remove   bool   `json:"remove,omitempty" jsonschema:"remove the relation instead of adding it"`
}

// WhyInput is the input of the why tool.
type WhyInput struct {
	Symbol string `json:"symbol" jsonschema:"a definition name (ParseConfig, Server.Close) or SCIP symbol"`
}

// FlagInput is the input of the flag tool (api.FlagArgs).
type FlagInput struct {
	ID     string `json:"id" jsonschema:"the memory id (or a unique prefix of at least 6 characters)"`
	Reason string `json:"reason,omitempty" jsonschema:"why the memory is wrong, for the person who reviews it"`
}

// addRelationTools registers relate, why and flag.
func (s *Server) addRelationTools() {
	addTool(s, &sdk.Tool{Name: "relate", Annotations: additive("Relate two memories", true),
		Description: "Relate two memories: id supersedes target (the newer note replaces the older; the older is hidden from hovers and ranks lower), conflicts_with, required_with, validates or derived_from. " +
			"Call it instead of forgetting an outdated memory so the history stays; remove: true undoes a relation."},
		s.relate)
	addTool(s, &sdk.Tool{Name: "why", Annotations: readOnly("Why is this code so"),
		Description: "Explain a definition: the decisions, gotchas and other memories on it and on the definitions that contain or call it, with the memories related to them, oldest first, as Markdown and a Mermaid graph. " +
			"Call it before changing code whose reasons you do not know."},
		s.why)
	addTool(s, &sdk.Tool{Name: "flag", Annotations: additive("Flag a memory as wrong", true),
		Description: "Mark a memory as wrong or doubtful so a person reviews it (needs_review), with a reason. Call it when a memory contradicts what you see in the code and you are not sure enough to update or forget it."},
		s.flag)
}

func (s *Server) relate(ctx context.Context, _ *sdk.CallToolRequest, in RelateInput) (*sdk.CallToolResult, api.RelateResult, error) {
	res, err := s.impl.Relate(ctx, api.RelateArgs(in))
	if err != nil {
		return nil, api.RelateResult{}, toolError(err)
	}
	return nil, res, nil
}

func (s *Server) why(ctx context.Context, _ *sdk.CallToolRequest, in WhyInput) (*sdk.CallToolResult, api.WhyResult, error) {
	res, err := s.impl.Why(ctx, api.WhyArgs(in))
	if err != nil {
		return nil, api.WhyResult{}, toolError(err)
	}
	return nil, res, nil
}

func (s *Server) flag(ctx context.Context, _ *sdk.CallToolRequest, in FlagInput) (*sdk.CallToolResult, MemoryOutput, error) {
	v, err := s.impl.Flag(ctx, api.FlagArgs(in))
	if err != nil {
		return nil, MemoryOutput{}, toolError(err)
	}
	return nil, MemoryOutput{Memory: v}, nil
}
