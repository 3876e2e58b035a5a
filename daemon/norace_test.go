//go:build !race

package daemon

// raceEnabled is false without the race detector (see race_test.go).
const raceEnabled = false
