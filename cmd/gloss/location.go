package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseLocation parses a code location written PATH, PATH:LINE or
// PATH:START-END, as the CLI's --at flag takes it. Lines are 1-based and
// inclusive; PATH:LINE means START = END = LINE. Without a colon s is all
// path and start and end are 0 (no lines). The path is whatever precedes
// the last colon, returned as written (not cleaned or resolved).
//
// It returns an error, naming s, when the path before the colon is empty,
// when START is not a number ≥ 1, or when END is not a number ≥ START.
func parseLocation(s string) (path string, start, end int, err error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, 0, nil
	}
	path, spec := s[:i], s[i+1:]
	if path == "" {
		return "", 0, 0, fmt.Errorf("bad location %q: want PATH:LINE or PATH:START-END", s)
	}
	a, b, found := strings.Cut(spec, "-")
	start, err = strconv.Atoi(a)
	if err != nil || start < 1 {
		return "", 0, 0, fmt.Errorf("bad location %q: lines are 1-based numbers (PATH:START-END)", s)
	}
	end = start
	if found {
		end, err = strconv.Atoi(b)
		if err != nil || end < start {
			return "", 0, 0, fmt.Errorf("bad location %q: end line must be a number ≥ start line", s)
		}
	}
	return path, start, end, nil
}
