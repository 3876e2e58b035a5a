//go:build race

package daemon

// raceEnabled is true under the race detector, which slows parses and
// their cancellation checks several times: assertions on how soon
// background work ends (the lsp's 2 s "still running" log) are skipped.
const raceEnabled = true
