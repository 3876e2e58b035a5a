package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 17: removing the manifest marker made the next `gloss list` print
// "0 memories". Now list fails naming the store and `gloss doctor`, and
// doctor brings the memory back.
func TestDoctorRecoversLostMarker(t *testing.T) {
	home, repo := cliRepo(t)
	if _, _, err := run(t, repo, "", "--no-daemon", "remember", "Capped at 3", "--at", "main.go:4-12"); err != nil {
		t.Fatal(err)
	}
	markers, _ := filepath.Glob(filepath.Join(home, "projects", "*", "pebble", "marker.manifest.*"))
	if len(markers) != 1 {
		t.Fatalf("markers: %v", markers)
	}
	if err := os.Remove(markers[0]); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, repo, "", "--no-daemon", "list")
	if err == nil || !strings.Contains(err.Error(), "gloss doctor") {
		t.Fatalf("list over a store without marker: %q, %v; want an error naming gloss doctor", out, err)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "doctor")
	if err != nil || !strings.Contains(out, "repaired:") {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "list")
	if err != nil || !strings.Contains(out, "1 memories") {
		t.Fatalf("list after doctor: %v\n%s", err, out)
	}
}
