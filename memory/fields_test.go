package memory

import (
	"strings"
	"testing"
)

// Every field of a memory is scanned, not only the body.
func TestCheckMemorySecretsFields(t *testing.T) {
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
		err := checkMemorySecrets(tc.title, tc.body, tc.tags)
		if err == nil || !strings.Contains(err.Error(), "the "+tc.field+" ") {
			t.Errorf("checkMemorySecrets(%q, %q, %q) = %v, want a refusal naming the %s", tc.title, tc.body, tc.tags, err, tc.field)
		}
	}
	if err := checkMemorySecrets("Retry cap", "Retries are capped at 3", []string{"net"}); err != nil {
		t.Error(err)
	}
}
