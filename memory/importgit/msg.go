package importgit

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/fields"
)

// Skip reasons of Run, counted in Result.Skipped.
const (
	// SkipMerge: a merge commit (imported only with Options.Merges).
	SkipMerge = "merge"
	// SkipHuge: the commit changed more definitions than
	// Options.MaxDefinitions (a mass rename, a generated file, a
	// vendored dependency): one memory on all of them says nothing.
	SkipHuge = "too_many_definitions"
	// SkipFormatting: the commit changed code files but not their
	// normalized tokens (whitespace, comments, formatting only).
	SkipFormatting = "formatting_only"
	// SkipMessage: the message is routine ("fix typo", "bump", "wip",
	// "merge branch"; noiseMessage).
	SkipMessage = "routine_message"
	// SkipBot: the author is a bot (dependabot, renovate, "[bot]").
	SkipBot = "bot"
	// SkipNoDefinitions: no definition of a parsed language changed
	// (documentation, configuration, or code outside definitions such as
	// imports).
	SkipNoDefinitions = "no_definitions"
	// SkipImported: the commit's memory exists already (an earlier run).
	SkipImported = "already_imported"
	// SkipRefused: the memory was refused (a credential in the message,
	// invalid UTF-8).
	SkipRefused = "refused"
)

// noiseSubject matches routine commit subjects that explain no code.
var noiseSubject = regexp.MustCompile(`(?i)^\s*(\w+(\([^)]*\))?!?:\s*)?(` +
	`(fix(ed|es)?|correct(ed)?)\s+(a\s+|some\s+)?(typo|typos|spelling|whitespace|indentation|formatting)\b|` +
	`typos?\b|bump(ed|s)?\b|wip\b|merge (remote-tracking )?branch\b|merge (pull request|branch) .* into\b|` +
	`update (go\.mod|go\.sum|dependencies|deps|changelog|copyright)\b|` +
	`(build|chore)\(deps(-dev)?\)` +
	`)`)

// botAuthor matches the names and e-mail addresses of bots.
var botAuthor = regexp.MustCompile(`(?i)\[bot\]|dependabot|renovate|greenkeeper|github-actions|snyk-bot|pre-commit-ci|mergify`)

// isBot reports whether a commit author is a bot.
func isBot(name, email string) bool {
	return botAuthor.MatchString(name) || botAuthor.MatchString(email)
}

// noiseMessage reports whether a commit message is routine (its subject
// matches noiseSubject).
func noiseMessage(msg string) bool {
	return noiseSubject.MatchString(subjectOf(msg))
}

var (
	// fixWords mark a fix: the memory is an error_pattern.
	fixWords = regexp.MustCompile(`(?i)\b(fix(es|ed|ing)?|bug(fix)?|hotfix|regression|crash(es|ed)?|panic(s|ked)?|race( condition)?|deadlock|leak(s|ed)?|broken)\b`)
	// decisionWords mark a design rationale: the memory is a decision.
	decisionWords = regexp.MustCompile(`(?i)\b(because|so that|instead of|rather than|in order to|design(ed)?|decid(e|ed|ing)|decision|rationale|trade-?offs?|we chose|chosen|prefer(red)?)\b`)
)

// commitType returns the memory type of a commit message: a fix in the
// subject is an error_pattern; design wording ("because", "so that",
// "instead of", …) anywhere is a decision; anything else a note.
func commitType(msg string) string {
	switch {
	case fixWords.MatchString(subjectOf(msg)):
		return "error_pattern"
	case decisionWords.MatchString(msg):
		return "decision"
	}
	return "note"
}

// subjectOf returns the first line of a commit message.
func subjectOf(msg string) string {
	s, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return strings.TrimSpace(s)
}

// mergeSubject matches the subject GitHub gives a merged pull request.
var mergeSubject = regexp.MustCompile(`^Merge pull request #\d+ from \S+$`)

// commitTitle is the memory title of a commit: its subject, or for a
// GitHub merge commit the pull request's title (the message's next line),
// cut to fields.MaxTitle.
func commitTitle(msg string) string {
	subj := subjectOf(msg)
	if mergeSubject.MatchString(subj) {
		for _, l := range strings.Split(msg, "\n")[1:] {
			if l = strings.TrimSpace(l); l != "" {
				subj = l
				break
			}
		}
	}
	return memory.DeriveTitle(subj)
}

// refPattern finds issue and pull request references: "#123",
// "(#123)", "GH-123".
var refPattern = regexp.MustCompile(`(?:^|[\s(\[,])(?:#|GH-)(\d{1,7})\b`)

// commitRefs returns the distinct issue and pull request numbers a message
// names, in order (at most 5).
func commitRefs(msg string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range refPattern.FindAllStringSubmatch(msg, -1) {
		if !seen[m[1]] && len(out) < 5 {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// githubBase returns https://github.com/OWNER/REPO for a GitHub remote
// URL (https, ssh or scp-like), else "".
func githubBase(remote string) string {
	n := memory.NormalizeRemote(remote)
	if !strings.HasPrefix(n, "github.com/") || strings.Count(n, "/") != 2 {
		return ""
	}
	return "https://" + n
}

// commitStats summarizes what a commit changed in the body of its memory.
type commitStats struct {
	Files, Changed, Added, Removed int
}

// commitBody is the memory body of a commit: its message (after the
// subject, capped to leave room), then a provenance line with the commit
// and the issues it names (Markdown links when base, a GitHub repository
// URL, is known) and short stats.
func commitBody(c *gitCommit, base string, st commitStats) string {
	var b strings.Builder
	subj := subjectOf(c.Message)
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c.Message), subj))
	if commitTitle(c.Message) != subj { // cut, or a merge titled by its pull request
		rest = strings.TrimSpace(subj + "\n\n" + rest)
	}
	if len(rest) > fields.MaxBody/2 {
		rest = strings.ToValidUTF8(rest[:fields.MaxBody/2], "") + "…"
	}
	if rest != "" {
		b.WriteString(rest + "\n\n")
	}
	short := c.Hash[:min(12, len(c.Hash))]
	link := func(text, url string) string {
		if base == "" {
			return text
		}
		return "[" + text + "](" + base + url + ")"
	}
	b.WriteString("Commit " + link(short, "/commit/"+c.Hash))
	for _, n := range commitRefs(c.Message) {
		b.WriteString(" · " + link("#"+n, "/issues/"+n))
	}
	fmt.Fprintf(&b, " · %d file%s, %d definition%s changed", st.Files, plural(st.Files), st.Changed, plural(st.Changed))
	if st.Added > 0 {
		fmt.Fprintf(&b, ", %d added", st.Added)
	}
	if st.Removed > 0 {
		fmt.Fprintf(&b, ", %d removed", st.Removed)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// commitMemoryID is the memory id of a commit: a ULID (Crockford base32,
// github.com/ulid/spec) whose time is the commit's author time and whose
// 80 random bits are the first 10 bytes of the commit hash. Importing a
// commit twice gives the same id, which is what makes Run
// idempotent; ids sort by commit time like other memories by creation.
func commitMemoryID(hash string, t time.Time) (string, error) {
	var entropy [10]byte
	if len(hash) < 20 {
		return "", fmt.Errorf("commit hash %q is too short", hash)
	}
	for i := range entropy {
		v, err := hexByte(hash[2*i : 2*i+2])
		if err != nil {
			return "", fmt.Errorf("commit hash %q: %w", hash, err)
		}
		entropy[i] = v
	}
	ms := t.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	id, err := ulid.New(uint64(ms), bytesReader(entropy[:]))
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

func hexByte(s string) (byte, error) {
	var v byte
	for _, c := range []byte(s) {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= c - '0'
		case c >= 'a' && c <= 'f':
			v |= c - 'a' + 10
		default:
			return 0, fmt.Errorf("not hexadecimal")
		}
	}
	return v, nil
}

// bytesReader reads b once.
type bytesReader []byte

func (r bytesReader) Read(p []byte) (int, error) { return copy(p, r), nil }
