package api

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// URIToPath converts a file:// URI (RFC 8089) to an absolute, cleaned
// file path. Other schemes and URIs without a path are errors.
func URIToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("bad URI %q: %v", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("unsupported URI %q: only file:// URIs are served", uri)
	}
	p := u.Path
	if p == "" {
		return "", fmt.Errorf("bad URI %q: no path", uri)
	}
	// file:///C:/x on Windows.
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}

// PathToURI converts an absolute file path to a file:// URI.
func PathToURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
