// Package fuzzci runs gloss's fuzz targets for a short, fixed time each,
// so CI explores new inputs on every run rather than only replaying the
// seed corpora (which plain `go test` does).
//
// The package has no code: its one test, TestFuzz, runs
//
//	go test -run=^$ -fuzz=^NAME$ -fuzztime=T -parallel=2 ./PKG
//
// from the module root for each target in its table, one after another,
// and fails with the command's output, and the path of the crasher file
// the fuzzer wrote under PKG/testdata/fuzz, when a target fails. Commit
// that file to keep the input as a regression test.
//
// TestFuzz is skipped unless CI=true or GLOSS_FUZZ_TIME is set, and under
// -short. T is GLOSS_FUZZ_TIME (a duration such as 30s, or a count such
// as 1000x; default 10s). To run it locally:
//
//	GLOSS_FUZZ_TIME=30s go test ./internal/fuzzci
//
// Each target also takes 20-40 s to build on a 2-core machine, and the
// whole run must fit in go test's -timeout (10m by default): raise it, for
// example -timeout=30m, for long fuzz times.
package fuzzci
