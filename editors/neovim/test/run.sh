#!/usr/bin/env bash
# Headless tests of the gloss Neovim plugin against a fake gloss server.
# Usage: editors/neovim/test/run.sh   (needs nvim >= 0.7 and python3)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
project="$tmp/project"
mkdir -p "$project/.git" "$project/sub"
printf 'package main\n\tx := "h\xc3\xa9llo\xf0\x9f\x98\x80"\nfunc f() {}\n' > "$project/main.go"
printf 'some notes\n' > "$project/notes.txt"
export GLOSS_TEST_DIR="$here" GLOSS_TEST_PROJECT="$project" FAKE_GLOSS_LOG="$tmp/requests.jsonl"
cd "$project"
# 1. The plugin loads and set-up works with no server on $PATH.
nvim --headless -u NONE -i NONE --cmd "set rtp+=$plugin" -c 'lua require("gloss").setup({})' -c 'qa!'
# 2. Behaviour against the fake server.
nvim --headless -u NONE -i NONE --cmd "set rtp+=$plugin" -c "luafile $here/run.lua" 2>&1
