;;; gloss-test.el --- Tests for gloss.el against the fake server  -*- lexical-binding: t; -*-

;; Run with editors/emacs/test/run.sh.  Uses editors/neovim/test/fake_gloss.py,
;; a stand-in for `gloss lsp' that logs every message it receives.

;;; Code:

(require 'ert)
(require 'json)
(require 'gloss)

(defvar gloss-test-project (getenv "GLOSS_TEST_PROJECT"))
(defvar gloss-test-log (getenv "FAKE_GLOSS_LOG"))
(defvar gloss-test-fake (getenv "FAKE_GLOSS"))

(defun gloss-test--log ()
  "Messages the fake server received, as alists."
  (when (file-exists-p gloss-test-log)
    (with-temp-buffer
      (insert-file-contents gloss-test-log)
      (mapcar (lambda (l) (json-read-from-string l))
              (split-string (buffer-string) "\n" t)))))

(defun gloss-test--commands (name)
  "executeCommand params the fake server received for NAME."
  (delq nil (mapcar (lambda (m)
                      (let ((p (alist-get 'params m)))
                        (when (and (equal (alist-get 'method m) "workspace/executeCommand")
                                   (equal (alist-get 'command p) name))
                          p)))
                    (gloss-test--log))))

(defun gloss-test--wait (pred &optional seconds)
  "Process output until PRED is non-nil or SECONDS pass."
  (let ((deadline (+ (float-time) (or seconds 10))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(defun gloss-test--open ()
  "Visit main.go of the test project with lsp (gloss only) running."
  (setq lsp-auto-guess-root nil
        lsp-restart 'ignore
        lsp-enable-file-watchers nil
        lsp-headerline-breadcrumb-enable nil
        lsp-enable-snippet nil
        lsp-keep-workspace-alive nil
        lsp-session-file (expand-file-name "lsp-session" (file-name-directory gloss-test-log))
        gloss-executable "python3"
        gloss-args (list gloss-test-fake))
  (add-to-list 'lsp-language-id-configuration '(fundamental-mode . "plaintext"))
  (find-file (expand-file-name "main.go" gloss-test-project))
  (fundamental-mode)
  (lsp-workspace-folders-add gloss-test-project)
  (lsp)
  (gloss-test--wait (lambda () (cl-find-if #'gloss--workspace-p (lsp-workspaces))))
  (should (cl-find-if #'gloss--workspace-p (lsp-workspaces))))

(ert-deftest gloss-test-positions ()
  (with-temp-buffer
    (insert "package main\n\tx := \"h\u00e9llo\U0001F600\"\n")
    (let ((p (gloss--position (point-min))))
      (should (equal p '(:line 0 :character 0))))
    (goto-char (point-min))
    (forward-line 1)
    (search-forward "\U0001F600")
    ;; \t x space : = space " h é l l o 😀 -> 12 chars, the emoji counting 2
    (should (equal (gloss--position (point)) '(:line 1 :character 14)))))

(ert-deftest gloss-test-lines ()
  (let* ((h (lambda (&rest kv) (let ((t0 (make-hash-table :test 'equal)))
                                 (while kv (puthash (substring (symbol-name (car kv)) 1) (cadr kv) t0)
                                        (setq kv (cddr kv)))
                                 t0)))
         (fresh (funcall h :id "a" :title "A" :type "note" :stale nil
                         :anchors (vector (funcall h :path "x.go" :start_line 3 :end_line 4 :status "fresh"))))
         (stale (funcall h :id "b" :title "B" :type "gotcha" :stale nil
                         :anchors (vector (funcall h :path "x.go" :start_line 9 :end_line 9 :status "signature_changed"))))
         (loose (funcall h :id "c" :title "" :body "first\nsecond" :type "note" :stale t :anchors [])))
    (should (equal (gloss--lines (list fresh stale loose) "/r/" nil)
                   '("x.go:3: [note] A {a}"
                     "x.go:9: warning: [gotcha] B (signature changed) {b}"
                     "-: [note] first (stale) {c}")))
    (should (equal (gloss--lines (list fresh stale) "/r/" t)
                   '("x.go:9: warning: [gotcha] B (signature changed) {b}")))))

(ert-deftest gloss-test-with-server ()
  (gloss-test--open)
  ;; remember a region
  (goto-char (point-min))
  (let ((beg (point)))
    (forward-line 2)
    (gloss-remember beg (point) "gotcha" "Hold the lock"))
  (let* ((p (car (last (gloss-test--commands "gloss.remember"))))
         (arg (aref (alist-get 'arguments p) 0)))
    (should (equal (alist-get 'type arg) "gotcha"))
    (should (equal (alist-get 'text arg) "Hold the lock"))
    (should (string-prefix-p "file://" (alist-get 'uri arg)))
    (should (equal (alist-get 'line (alist-get 'start (alist-get 'range arg))) 0))
    (should (equal (alist-get 'line (alist-get 'end (alist-get 'range arg))) 2)))
  ;; draft: empty text is not sent
  (gloss-remember (point-min) (point-min) "note" "")
  (let* ((p (car (last (gloss-test--commands "gloss.remember"))))
         (arg (aref (alist-get 'arguments p) 0)))
    (should-not (assq 'text arg)))
  ;; list / stale
  (let ((lines (gloss-list)))
    (should (= (length lines) 4))
    (should (string-match-p "^main.go:1: \\[convention\\] Fresh one {m-fresh}$" (car lines))))
  (let ((lines (gloss-stale)))
    (should (equal lines '("main.go:3: warning: [gotcha] Stale one (signature changed) {m-stale}"))))
  (with-current-buffer gloss-buffer-name
    (should (derived-mode-p 'compilation-mode)))
  ;; status sends {}
  (gloss-status)
  (let ((arg (aref (alist-get 'arguments (car (gloss-test--commands "gloss.status"))) 0)))
    (should (null arg)))
  ;; code lens command handled client-side
  (gloss--action-show-memories
   (list :command "gloss.showMemories"
         :arguments (vector (list :uri (lsp--buffer-uri)
                                  :range (list :start (list :line 2 :character 0)
                                               :end (list :line 2 :character 0))))))
  (should (gloss-test--commands "gloss.memoriesAt"))
  (with-current-buffer "*gloss memory*"
    (should (string-match-p "Stale one" (buffer-string))))
  ;; forwarded action (e.g. from a code action) goes to gloss only
  (gloss--action-forward (list :command "gloss.verify" :arguments (vector (list :id "m-stale"))))
  (should (equal (alist-get 'id (aref (alist-get 'arguments (car (gloss-test--commands "gloss.verify"))) 0))
                 "m-stale"))
  (should (null (gloss-stale)))
  ;; the gloss client is an add-on and handles the lens command
  (let ((client (gethash 'gloss lsp-clients)))
    (should (lsp--client-add-on? client))
    (should (gethash "gloss.showMemories" (lsp--client-action-handlers client)))))

(provide 'gloss-test)
;;; gloss-test.el ends here
