#!/usr/bin/env bash
# Renders editors/screenshots/neovim.png: Neovim (this repo's plugin, the real gloss
# server) in tmux showing a code lens, a stale-memory diagnostic and the hover.
# Needs nvim, tmux, git, python3, chromium (apt-get install -y tmux chromium
# fonts-dejavu-core) and go unless GLOSS_BIN is set. Run from anywhere.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
sock="gloss-shot-$$"
cleanup() { tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
if [ -z "${GLOSS_BIN:-}" ]; then
  (cd "$repo" && go build -o "$tmp/gloss" ./cmd/gloss)
  GLOSS_BIN="$tmp/gloss"
fi
project="$tmp/project"
mkdir -p "$project" "$tmp/home" "$tmp/gloss-home"
cat > "$project/go.mod" <<'GO'
module example.com/shop

go 1.22
GO
cat > "$project/main.go" <<'GO'
package main

import "errors"

// ErrGiveUp is returned when every attempt failed.
var ErrGiveUp = errors.New("gave up")

// Retry calls f until it succeeds, at most limit times.
func Retry(f func() error) error {
	limit := 3
	for i := 0; i < limit; i++ {
		if err := f(); err == nil {
			return nil
		}
	}
	return ErrGiveUp
}

func main() {
	_ = Retry(func() error { return nil })
}
GO
envs=(HOME="$tmp/home" GLOSS_HOME="$tmp/gloss-home" XDG_CONFIG_HOME="$tmp/home/.config"
  XDG_DATA_HOME="$tmp/home/.local/share" XDG_STATE_HOME="$tmp/home/.local/state" XDG_CACHE_HOME="$tmp/home/.cache"
  GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
  GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com USER=ada GLOSS_BIN="$GLOSS_BIN"
  GLOSS_SHOT_READY="$tmp/ready" TERM=tmux-256color COLORTERM=truecolor)
env "${envs[@]}" git -C "$project" -c init.defaultBranch=main init -q
env "${envs[@]}" git -C "$project" add -A
env "${envs[@]}" git -C "$project" -c commit.gpgsign=false commit -q -m init
cols=140 rows=30
tmux -L "$sock" -f /dev/null new-session -d -x "$cols" -y "$rows" -c "$project" \
  env "${envs[@]}" nvim -u NONE -i NONE -n --cmd "set rtp+=$repo/editors/neovim" -c "luafile $here/neovim-shot.lua"
for _ in $(seq 1 200); do
  [ -f "$tmp/ready" ] && break
  sleep 0.1
done
[ -f "$tmp/ready" ] || { echo "nvim did not get ready" >&2; tmux -L "$sock" capture-pane -p >&2; exit 1; }
tmux -L "$sock" capture-pane -e -p > "$tmp/capture.txt"
python3 "$here/ansi2html.py" "$tmp/capture.txt" "$tmp/shot.html" --cols "$cols" --rows "$rows" --bg "#282c34" --fg "#e6e6e6"
width=$((cols * 85 / 10 + 24)) height=$((rows * 17 + 20))
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --hide-scrollbars \
  --window-size="$width,$height" --screenshot="$tmp/shot.png" "file://$tmp/shot.html" 2>/dev/null
if [ -n "${SHOT_KEEP_HTML:-}" ]; then cp "$tmp/capture.txt" "$tmp/shot.html" "$here/"; fi
cp "$tmp/shot.png" "$here/neovim.png"
ls -l "$here/neovim.png"
