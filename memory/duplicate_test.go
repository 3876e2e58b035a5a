package memory

import "testing"

// duplicatePairs are hand-written pairs of memory texts (title and body):
// rewordings of one note (dup) and different notes about the same code.
var duplicatePairs = []struct {
	a, b string
	dup  bool
}{
	{"Retries are capped at 3\nThe upstream rate-limits bursts, so retries are capped at 3 attempts.",
		"Retry cap is 3\nRetries are capped at three attempts because upstream rate-limits bursts.", true},
	{"Do not call Close twice\nClosing the store twice panics in Pebble; guard with a once.",
		"Close must not be called twice\nCalling Close twice on the store panics in Pebble, guard it with sync.Once.", true},
	{"Flags are parsed lazily\nExecuteC parses flags only when the command runs, not at init.",
		"Flags parsed lazily\nflags are parsed lazily in ExecuteC when the command runs rather than at init time", true},
	{"Timeout is in milliseconds\nThe timeout argument of Dial is milliseconds, not seconds.",
		"Dial timeout unit\nDial takes its timeout in milliseconds (not seconds).", true},
	{"Retries are capped at 3\nThe upstream rate-limits bursts, so retries are capped at 3 attempts.",
		"Backoff doubles\nEach retry waits twice as long as the previous one, starting at 100ms.", false},
	{"Do not call Close twice\nClosing the store twice panics in Pebble; guard with a once.",
		"Open waits for the lock\nOpenStore retries for 15 seconds when another process holds the store lock.", false},
	{"Flags are parsed lazily\nExecuteC parses flags only when the command runs, not at init.",
		"Help command is added by default\nInitDefaultHelpCmd adds the help subcommand unless one exists.", false},
	{"Timeout is in milliseconds\nThe timeout argument of Dial is milliseconds, not seconds.",
		"Dial retries DNS\nDial resolves the host again on each attempt so DNS changes are picked up.", false},
	{"Usage template\nThe usage template is a text/template rendered with the command as data.",
		"Usage function override\nSetUsageFunc replaces the whole usage output; the template is then ignored.", false},
}

// TestDuplicateThreshold checks DuplicateThreshold separates the pairs.
func TestDuplicateThreshold(t *testing.T) {
	for _, p := range duplicatePairs {
		sim := TextSimilarity(p.a, p.b)
		t.Logf("dup=%v sim=%.2f %q", p.dup, sim, p.b[:20])
		if got := sim >= DuplicateThreshold; got != p.dup {
			t.Errorf("similarity %.2f of %q and %q: duplicate %v, want %v", sim, p.a, p.b, got, p.dup)
		}
	}
}
