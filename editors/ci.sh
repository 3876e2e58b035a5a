#!/usr/bin/env bash
# CI for the editor integrations, run from the repository root: editors/ci.sh
#
#  1. installs what is missing, non-interactively: Neovim (apt-get, only if `nvim` is not
#     on PATH) and the VS Code extension's npm dependencies (`npm ci`);
#  2. builds gloss once (GLOSS_BIN=/path/to/gloss skips the build);
#  3. Neovim: the plugin's tests against the fake server (test/run.sh) and the end-to-end
#     test against the real server (test/e2e.sh);
#  4. VS Code: npm run lint, npm test, npm run test:e2e (real server), npm run package
#     (must produce editors/vscode/gloss.vsix).
#
# Needs go (unless GLOSS_BIN is set), git, node/npm, python3; apt-get for Neovim if absent.
# Prints the time of every step; exits non-zero on the first failure.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export DEBIAN_FRONTEND=noninteractive

now() { date +%s.%N; }
t_start="$(now)"
timings=()
step() { # step NAME COMMAND...
  local name="$1"
  shift
  echo
  echo "=== $name"
  local t0 t1 rc=0
  t0="$(now)"
  "$@" || rc=$?
  t1="$(now)"
  local secs
  secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
  timings+=("$(printf '%-40s %7ss' "$name" "$secs")")
  if [ "$rc" -ne 0 ]; then
    echo "=== FAILED: $name (exit $rc, ${secs}s)"
    summary
    exit "$rc"
  fi
  echo "=== ok: $name (${secs}s)"
}
summary() {
  echo
  echo "--- timings"
  printf '%s\n' "${timings[@]}"
  awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%-40s %7.1fs\n", "total", b - a }'
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    echo "need root (or sudo) for: $*" >&2
    return 1
  fi
}

require() {
  local missing=0
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "missing required tool: $tool" >&2
      missing=1
    fi
  done
  return "$missing"
}

install_neovim() {
  if command -v nvim >/dev/null 2>&1; then
    echo "nvim present: $(nvim --version | head -1)"
    return 0
  fi
  as_root apt-get update -q
  as_root apt-get install -y -q neovim
  nvim --version | head -1
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

build_gloss() {
  if [ -n "${GLOSS_BIN:-}" ]; then
    echo "using GLOSS_BIN=$GLOSS_BIN"
    [ -x "$GLOSS_BIN" ]
    return
  fi
  go build -o "$tmp/gloss" ./cmd/gloss
  GLOSS_BIN="$tmp/gloss"
  echo "built $GLOSS_BIN"
}

check_vsix() {
  local vsix="editors/vscode/gloss.vsix"
  if [ ! -s "$vsix" ]; then
    echo "$vsix was not produced" >&2
    return 1
  fi
  echo "$vsix: $(stat -c %s "$vsix") bytes"
}

vscode() { (cd editors/vscode && "$@"); }

if [ -n "${GLOSS_BIN:-}" ]; then
  require git node npm python3
else
  require go git node npm python3
fi
step "install neovim (if missing)" install_neovim
step "npm ci (editors/vscode)" vscode npm ci --no-audit --no-fund
step "build gloss" build_gloss
GLOSS_BIN="$(cd "$(dirname "$GLOSS_BIN")" && pwd)/$(basename "$GLOSS_BIN")"
export GLOSS_BIN
step "neovim: plugin tests (fake server)" editors/neovim/test/run.sh
step "neovim: e2e (real gloss lsp)" editors/neovim/test/e2e.sh
step "vscode: npm run lint" vscode npm run lint
step "vscode: npm test" vscode npm test
step "vscode: npm run test:e2e (real gloss)" vscode npm run test:e2e
rm -f editors/vscode/gloss.vsix
step "vscode: npm run package" vscode npm run package
step "vscode: .vsix produced" check_vsix
summary
echo "editors CI: all passed"
