#!/usr/bin/env bash
# End-to-end test: headless Neovim + this plugin + the REAL `gloss lsp` server on a
# temporary git repository. Checks remember -> hover -> code lens -> incremental edit ->
# `gloss` stale-memory diagnostic -> quick fixes (see e2e.lua).
#
# Usage (from anywhere): editors/neovim/test/e2e.sh
#   GLOSS_BIN=/path/to/gloss   use this binary (default: `go build ./cmd/gloss` into a temp dir)
#   GLOSS_E2E_KEEP=1           keep the temp dir (project, GLOSS_HOME, Neovim's lsp.log)
# Needs nvim >= 0.7 and git (and go when GLOSS_BIN is not given).
# Prints `N passed, N failed` last; exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
repo_root="$(cd "$plugin/../.." && pwd)"
tmp="$(mktemp -d)"
if [ -z "${GLOSS_E2E_KEEP:-}" ]; then
  # A gloss daemon the test started (or restarted after its kill -9) may
  # still be writing under $tmp: end every process that names it first.
  cleanup() {
    pkill -f -- "$tmp" 2>/dev/null || true
    for _ in 1 2 3 4 5; do rm -rf "$tmp" 2>/dev/null && return 0; sleep 0.2; done
    rm -rf "$tmp"
  }
  trap cleanup EXIT
else
  echo "# keeping $tmp"
fi

if [ -z "${GLOSS_BIN:-}" ]; then
  # Build before HOME is replaced below, so the normal Go build cache is used.
  echo "# building gloss into $tmp/gloss"
  (cd "$repo_root" && go build -o "$tmp/gloss" ./cmd/gloss)
  GLOSS_BIN="$tmp/gloss"
fi
case "$GLOSS_BIN" in /*) ;; *) GLOSS_BIN="$PWD/$GLOSS_BIN" ;; esac
[ -x "$GLOSS_BIN" ] || { echo "GLOSS_BIN=$GLOSS_BIN is not executable" >&2; exit 2; }

# Hermetic environment: no user config for git, gloss or Neovim.
export HOME="$tmp/home"
export GLOSS_HOME="$tmp/gloss-home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_DATA_HOME="$HOME/.local/share"
export XDG_STATE_HOME="$HOME/.local/state" XDG_CACHE_HOME="$HOME/.cache"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="E2E Author" GIT_AUTHOR_EMAIL="e2e@example.com"
export GIT_COMMITTER_NAME="E2E Author" GIT_COMMITTER_EMAIL="e2e@example.com"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
export USER="e2e"
mkdir -p "$HOME" "$GLOSS_HOME"

# Fixture repository. Non-ASCII text before and inside the function makes the UTF-16
# columns of the incremental edit matter.
project="$tmp/project"
mkdir -p "$project"
cat > "$project/go.mod" <<'EOF'
module example.com/e2e

go 1.22
EOF
cat > "$project/main.go" <<'EOF'
package main

// greeting has non-ASCII text before the anchored code: é𝄞.
var greeting = "héllo 𝄞"

// Retry calls f until it succeeds, at most limit times.
func Retry(f func() error) error {
	var err error
	_, limit := "é𝄞", 3
	for i := 0; i < limit; i++ {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}

func main() {
	println(greeting)
	_ = Retry(func() error { return nil })
}
EOF
git() { command git -C "$project" -c core.hooksPath=/dev/null -c init.defaultBranch=main -c commit.gpgsign=false "$@"; }
cat > "$project/util.go" <<'GOEOF'
package main

// Helper doubles x.
func Helper(x int) int {
	return x * 2
}
GOEOF
git init -q
git add -A
git commit -q -m fixture
# A branch that changes Helper's body, checked out while Neovim runs (e2e.lua, 7d).
git checkout -q -b change
sed -i 's/x \* 2/x * 3/' "$project/util.go"
git commit -q -am "change Helper"
git checkout -q main

export GLOSS_BIN GLOSS_E2E_PROJECT="$project" GLOSS_E2E_TMP="$tmp"
cd "$project"
nvim --headless -u NONE -i NONE -n --cmd "set rtp+=$plugin" -c "luafile $here/e2e.lua" 2>&1
