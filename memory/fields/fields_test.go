package fields

import (
	"strings"
	"testing"
)

// Every field of a memory is scanned, not only the body.
func TestCheckSecretsFields(t *testing.T) {
	tok := "ghp_" + strings.Repeat("aB3", 12)
	for _, tc := range []struct {
		title, body string
		tags        []string
		field       string
	}{
		{title: "key " + tok, body: "fine", field: "title"},
		{title: "fine", body: "DB_PASSWORD=hunter2hunter2", field: "text"},
		{title: "fine", body: "fine", tags: []string{"ok", tok}, field: "tag"},
	} {
		err := checkSecrets(tc.title, tc.body, tc.tags)
		if err == nil || !strings.Contains(err.Error(), "the "+tc.field+" ") {
			t.Errorf("checkSecrets(%q, %q, %q) = %v, want a refusal naming the %s", tc.title, tc.body, tc.tags, err, tc.field)
		}
	}
	if err := checkSecrets("Retry cap", "Retries are capped at 3", []string{"net"}); err != nil {
		t.Error(err)
	}
}

// Validate refuses each limit one past its edge and accepts it at the
// edge.
func TestValidateLimits(t *testing.T) {
	atEdge := [][]string{{strings.Repeat("é", MaxTitle), strings.Repeat("a", MaxBody)}}
	for _, f := range atEdge {
		if err := Validate(f[0], f[1], []string{strings.Repeat("ü", MaxTagLen)}); err != nil {
			t.Errorf("at the limits: %v", err)
		}
	}
	tags := make([]string, MaxTags+1)
	for i := range tags {
		tags[i] = "t"
	}
	for name, err := range map[string]error{
		"title":       Validate(strings.Repeat("é", MaxTitle+1), "fine", nil),
		"body":        Validate("", strings.Repeat("a", MaxBody+1), nil),
		"tag count":   Validate("", "fine", tags),
		"tag length":  Validate("", "fine", []string{strings.Repeat("ü", MaxTagLen+1)}),
		"tag control": Validate("", "fine", []string{"a\x1bb"}),
		"UTF-8 body":  Validate("", "caf\xe9", nil),
		"UTF-8 tag":   Validate("", "fine", []string{"caf\xe9"}),
	} {
		if err == nil {
			t.Errorf("%s over its limit or invalid: no error", name)
		}
	}
}
