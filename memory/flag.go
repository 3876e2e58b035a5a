package memory

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/internal/secret"
)

// MaxReviewReason bounds the reason of Flag in characters.
const MaxReviewReason = 500

// Flag marks memory id (or a unique prefix) as needing review — a person
// says it is wrong — with an optional reason (at most MaxReviewReason
// characters, checked for secrets), durably, and returns it. The review
// queue lists flagged memories; a verify or a re-anchor clears the flag.
// Flagging a flagged memory replaces its reason when one is given.
func (w *Workspace) Flag(id, reason string) (*Memory, error) {
	reason = strings.TrimSpace(reason)
	if !utf8.ValidString(reason) {
		return nil, fmt.Errorf("reason is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(reason); n > MaxReviewReason {
		return nil, fmt.Errorf("reason is %d characters, the limit is %d", n, MaxReviewReason)
	}
	if err := secret.Check(reason); err != nil {
		return nil, err
	}
	return w.edit(id, func(m *Memory) (bool, error) {
		m.NeedsReview = true
		if reason != "" {
			m.ReviewReason = reason
		}
		return true, nil
	})
}
