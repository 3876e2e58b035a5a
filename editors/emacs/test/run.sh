#!/usr/bin/env bash
# Byte-compiles gloss.el (warnings are errors) and runs the ERT tests against the
# fake server in editors/neovim/test/fake_gloss.py.
# Needs emacs >= 27.1 with lsp-mode (Debian: apt-get install emacs-nox elpa-lsp-mode).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
emacs_dir="$(dirname "$here")"
fake="$(cd "$emacs_dir/../neovim/test" && pwd)/fake_gloss.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
project="$tmp/project"
mkdir -p "$project/.git"
printf 'package main\n\tx := "h\xc3\xa9llo\xf0\x9f\x98\x80"\nfunc f() {}\n' > "$project/main.go"
export GLOSS_TEST_PROJECT="$project" FAKE_GLOSS_LOG="$tmp/requests.jsonl" FAKE_GLOSS="$fake"
init="$tmp/init.el"
cat > "$init" <<ELISP
(require 'package)
(dolist (d '("/usr/share/emacs/site-lisp/elpa" "/usr/share/emacs/site-lisp/elpa-src"))
  (add-to-list 'package-directory-list d))
(package-initialize)
(add-to-list 'load-path "$emacs_dir")
(add-to-list 'load-path "$here")
(setq byte-compile-error-on-warn t)
ELISP
cp "$emacs_dir/gloss.el" "$tmp/gloss.el"
emacs -Q --batch -l "$init" --eval "(add-to-list 'load-path \"$tmp\")" -f batch-byte-compile "$tmp/gloss.el"
emacs -Q --batch -l "$init" --eval "(add-to-list 'load-path \"$tmp\")" \
  -l "$here/gloss-test.el" -f ert-run-tests-batch-and-exit
