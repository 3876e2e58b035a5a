module github.com/gloss-dev/gloss/editors

// This module boundary keeps `go test ./...` of the main module out of
// editors/ (node_modules can contain Go packages).

go 1.22
