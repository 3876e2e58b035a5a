package memory

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/internal/secret"
)

// MaxSearchLimit caps the number of results Search returns (and asks the
// full-text index for, twice as many): larger limits, such as
// `gloss search -n 4611686018427387904`, are lowered to it instead of
// overflowing.
const MaxSearchLimit = 10000

// clampSearchLimit returns limit within 1..MaxSearchLimit; 0 or less means
// the default of 20.
func clampSearchLimit(limit int) int {
	switch {
	case limit <= 0:
		return 20
	case limit > MaxSearchLimit:
		return MaxSearchLimit
	}
	return limit
}

// Limits of memory fields, checked on every write path (remember, batch,
// update, memory files) by validateFields.
const (
	// MaxBody is the maximum memory text (body) in bytes after trimming:
	// 64 KiB. A memory is a note, not a document; hovers and briefings
	// show it whole.
	MaxBody = 64 << 10
	// MaxTags is the maximum number of tags of one memory.
	MaxTags = 32
	// MaxTagLen is the maximum length of one tag in characters.
	MaxTagLen = 64
)

// validateFields checks the text fields of a memory: valid UTF-8 (invalid
// bytes are an error, never silently replaced), the body within MaxBody,
// the title within MaxTitle characters, at most MaxTags tags of at most
// MaxTagLen characters without control characters, and no secret in any
// field (checkMemorySecrets).
func validateFields(title, body string, tags []string) error {
	if !utf8.ValidString(body) {
		return fmt.Errorf("memory text is not valid UTF-8")
	}
	if !utf8.ValidString(title) {
		return fmt.Errorf("title is not valid UTF-8")
	}
	if len(body) > MaxBody {
		return fmt.Errorf("memory text is %d bytes, the limit is %d (64 KiB)", len(body), MaxBody)
	}
	if n := utf8.RuneCountInString(title); n > MaxTitle {
		return fmt.Errorf("title is %d characters, the limit is %d", n, MaxTitle)
	}
	if len(tags) > MaxTags {
		return fmt.Errorf("%d tags, the limit is %d", len(tags), MaxTags)
	}
	for _, t := range tags {
		if !utf8.ValidString(t) {
			return fmt.Errorf("tag %q is not valid UTF-8", t)
		}
		if n := utf8.RuneCountInString(t); n > MaxTagLen {
			return fmt.Errorf("tag %.20q… is %d characters, the limit is %d", t, n, MaxTagLen)
		}
		if strings.IndexFunc(t, unicode.IsControl) >= 0 {
			return fmt.Errorf("tag %q contains a control character", t)
		}
	}
	return checkMemorySecrets(title, body, tags)
}

// checkMemorySecrets checks every text field of a memory and names the
// field in the error.
func checkMemorySecrets(title, body string, tags []string) error {
	fields := []struct{ name, text string }{{"title", title}, {"text", body}}
	for _, t := range tags {
		fields = append(fields, struct{ name, text string }{"tag", t})
	}
	for _, f := range fields {
		if kind := secret.Find(f.text); kind != "" {
			return fmt.Errorf("refused: the %s looks like it contains a %s; remove the secret and try again", f.name, kind)
		}
	}
	return nil
}
