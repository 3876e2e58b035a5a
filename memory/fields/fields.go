// Package fields holds the limits of a memory's text fields (title, body,
// tags) and Validate, the check every write path (remember, batch,
// update, memory files, import) applies to them: valid UTF-8, sizes
// within the limits, no control characters in tags and no secret in any
// field (internal/secret).
package fields

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/internal/secret"
)

// Limits of memory fields, checked on every write path by Validate.
const (
	// MaxTitle is the maximum title length in characters (runes).
	MaxTitle = 60
	// MaxBody is the maximum memory text (body) in bytes after trimming:
	// 64 KiB. A memory is a note, not a document; hovers and briefings
	// show it whole.
	MaxBody = 64 << 10
	// MaxTags is the maximum number of tags of one memory.
	MaxTags = 32
	// MaxTagLen is the maximum length of one tag in characters (runes).
	MaxTagLen = 64
)

// Validate checks the text fields of a memory: valid UTF-8 (invalid
// bytes are an error, never silently replaced), the body within MaxBody
// bytes, the title within MaxTitle characters, at most MaxTags tags of at
// most MaxTagLen characters without control characters, and no secret in
// any field (checkSecrets). The error says which limit or field failed,
// in words for people; nil when all hold.
func Validate(title, body string, tags []string) error {
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
	return checkSecrets(title, body, tags)
}

// checkSecrets scans every text field of a memory with secret.Find and
// refuses the first that looks like it holds a credential, naming the
// field ("title", "text" or "tag") and the kind of secret in the error;
// nil when none does.
func checkSecrets(title, body string, tags []string) error {
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
