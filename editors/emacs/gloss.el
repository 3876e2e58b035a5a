;;; gloss.el --- Code memories from the gloss language server  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The gloss authors
;; SPDX-License-Identifier: Apache-2.0

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (lsp-mode "8.0.0"))
;; Keywords: tools, languages, convenience
;; URL: https://github.com/gloss-dev/gloss

;;; Commentary:

;; gloss attaches notes ("memories") to code symbols.  Its language server,
;; `gloss lsp', shows them as hover notes and code lenses, raises `gloss'
;; diagnostics when the code they describe changes, and offers a "Remember
;; this selection" code action.  It is meant to run NEXT TO the buffer's
;; normal language server (gopls, pyright, ...).
;;
;; lsp-mode (primary, this file)
;; -----------------------------
;; lsp-mode runs several servers per buffer: one main client plus any number
;; of "add-on" clients.  This file registers gloss as an add-on client for
;; every major mode, so wherever you already use `lsp' / `lsp-deferred',
;; gloss starts too:
;;
;;   (require 'gloss)            ; after lsp-mode
;;   (add-hook 'go-mode-hook #'lsp-deferred)   ; as usual
;;
;; Commands: `gloss-remember' (region), `gloss-list', `gloss-stale',
;; `gloss-check', `gloss-show', `gloss-verify', `gloss-forget', `gloss-edit',
;; `gloss-status', `gloss-search'.  Code lenses need `lsp-lens-enable'
;; (on by default); the lens command `gloss.showMemories' is handled here.
;;
;; Eglot (alternative, not in this file)
;; -------------------------------------
;; Eglot manages ONE server per buffer, so gloss cannot simply be added next
;; to gopls.  The honest options are:
;;
;; 1. A multiplexer that looks like one server to Eglot, e.g. rassumfrassum:
;;
;;      (add-to-list 'eglot-server-programs
;;                   '(go-mode . ("rass" "--" "gopls" "--" "gloss" "lsp")))
;;
;;    It merges diagnostics and code actions from both and routes
;;    `workspace/executeCommand' by command name, but sends hover and code
;;    lenses to the FIRST server only: with gopls first you get gloss's
;;    diagnostics and "Remember this selection", not its hover notes.
;;    (lspx is another multiplexer; its diagnostics merging needs a fork.)
;;
;; 2. gloss alone in buffers where you don't need another server:
;;
;;      (add-to-list 'eglot-server-programs '(text-mode . ("gloss" "lsp")))
;;
;;    Code actions work through `eglot-code-actions'; other commands can
;;    be sent from Lisp with `eglot-execute-command'.
;;
;; See editors/emacs/README.md for details.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'lsp-mode)
(require 'compile)

(defgroup gloss nil
  "Code memories from the gloss language server."
  :group 'lsp-mode
  :prefix "gloss-"
  :link '(url-link "https://github.com/gloss-dev/gloss"))

(defcustom gloss-executable "gloss"
  "Name or path of the gloss binary."
  :type 'string)

(defcustom gloss-args '("lsp")
  "Arguments that make `gloss-executable' a stdio language server."
  :type '(repeat string))

(defcustom gloss-embedder nil
  "Embedder for semantic search, or nil for the server default.
Sent as the `embedder' initialization option and as GLOSS_EMBEDDER."
  :type '(choice (const :tag "Server default" nil) string))

(defcustom gloss-major-modes nil
  "Major modes gloss attaches to, or nil for every mode where lsp-mode runs."
  :type '(repeat symbol))

(defcustom gloss-buffer-name "*gloss*"
  "Name of the buffer that lists memories."
  :type 'string)

(defconst gloss-memory-types
  '("note" "gotcha" "decision" "convention" "pattern" "requirement"
    "error_pattern" "module_insight" "workflow" "dead_end")
  "Memory types understood by the gloss server.")

(defconst gloss--fresh-statuses '("fresh" "moved")
  "Anchor statuses that do not make a memory stale.")

(defconst gloss--server-commands
  '("gloss.remember" "gloss.memoriesAt" "gloss.list" "gloss.check" "gloss.show"
    "gloss.update" "gloss.verify" "gloss.forget" "gloss.status" "gloss.search")
  "Commands the server executes through workspace/executeCommand.")

;;;; Small helpers

(defun gloss--get (obj key)
  "Value of KEY (a keyword) in the JSON object OBJ (hash table or plist)."
  (cond ((hash-table-p obj) (gethash (substring (symbol-name key) 1) obj))
        ((and (listp obj) (keywordp (car-safe obj))) (plist-get obj key))))

(defun gloss--list (seq)
  "SEQ (vector, list or nil) as a list."
  (if (vectorp seq) (append seq nil) seq))

(defun gloss--true-p (v)
  "Non-nil when the JSON value V is true."
  (and v (not (eq v :json-false))))

(defun gloss--utf16-length (string)
  "Length of STRING in UTF-16 code units."
  (let ((n 0))
    (dolist (c (string-to-list string) n)
      (setq n (+ n (if (> c #xFFFF) 2 1))))))

(defun gloss--position (pos)
  "LSP position of POS: 0-based line, UTF-16 character."
  (save-restriction
    (widen)
    (save-excursion
      (goto-char pos)
      (list :line (1- (line-number-at-pos pos t))
            :character (gloss--utf16-length
                        (buffer-substring-no-properties (line-beginning-position) pos))))))

(defun gloss--range (beg end)
  "LSP range from BEG to END."
  (list :start (gloss--position (min beg end)) :end (gloss--position (max beg end))))

(defun gloss--workspace-p (ws)
  "Non-nil when WS is a gloss workspace."
  (eq (lsp--client-server-id (lsp--workspace-client ws)) 'gloss))

(defvar gloss--last-workspace nil
  "The gloss workspace used last, for buffers not managed by gloss.")

(defun gloss--workspace ()
  "The gloss workspace of the current buffer, else the last one used."
  (or (cl-find-if #'gloss--workspace-p (and (bound-and-true-p lsp-mode) (lsp-workspaces)))
      (and gloss--last-workspace
           (not (eq (lsp--workspace-status gloss--last-workspace) 'exiting))
           gloss--last-workspace)
      (cl-find-if #'gloss--workspace-p
                  (and (fboundp 'lsp--session-workspaces)
                       (lsp--session-workspaces (lsp-session))))
      (user-error "The gloss server is not running here (run `M-x lsp' in a file buffer)")))

(defun gloss--root (&optional ws)
  "Root folder of the gloss workspace WS."
  (or (ignore-errors (lsp--workspace-root (or ws (gloss--workspace))))
      default-directory))

(defun gloss--wait-initialized (ws)
  "Wait up to 10 seconds for WS to finish initializing."
  (let ((deadline (+ (float-time) 10)))
    (while (and (eq (lsp--workspace-status ws) 'starting) (< (float-time) deadline))
      (accept-process-output nil 0.05))))

(defun gloss-exec (command &optional arg)
  "Run gloss COMMAND with the argument object ARG and return its result.
ARG is a plist (or hash table); nil sends {}."
  (let ((ws (gloss--workspace)))
    (setq gloss--last-workspace ws)
    (gloss--wait-initialized ws)
    (with-lsp-workspace ws
      (lsp-request "workspace/executeCommand"
                   (list :command command
                         :arguments (vector (or arg (make-hash-table))))))))

(defun gloss--memories (result)
  "Memories in RESULT: {memories: [...]}, a list, or a single memory."
  (cond ((null result) nil)
        ((vectorp result) (append result nil))
        ((gloss--get result :memories) (gloss--list (gloss--get result :memories)))
        ((gloss--get result :id) (list result))))

(defun gloss--stale-anchor-p (memory anchor)
  "Non-nil when ANCHOR (or MEMORY itself) is stale."
  (or (gloss--true-p (gloss--get memory :stale))
      (not (member (or (gloss--get anchor :status) "fresh") gloss--fresh-statuses))))

(defun gloss--stale-p (memory)
  "Non-nil when MEMORY or any of its anchors is stale."
  (or (gloss--true-p (gloss--get memory :stale))
      (cl-some (lambda (a) (gloss--stale-anchor-p memory a))
               (gloss--list (gloss--get memory :anchors)))))

(defun gloss--title (memory)
  "Title of MEMORY, falling back to its first body line or id."
  (let ((title (gloss--get memory :title))
        (body (or (gloss--get memory :body) "")))
    (cond ((and title (not (string-empty-p title))) title)
          ((string-match "^[ \t]*\\([^\n]+\\)" body) (match-string 1 body))
          (t (or (gloss--get memory :id) "?")))))

(defun gloss--after-change ()
  "Refresh code lenses after memories changed."
  (when (and (bound-and-true-p lsp-lens-mode) (fboundp 'lsp-lens-refresh))
    (ignore-errors (lsp-lens-refresh t))))

;;;; Listing memories

(defun gloss--lines (memories root stale-only)
  "Compilation-style lines for MEMORIES; ROOT resolves relative paths.
With STALE-ONLY, keep only stale memories and anchors."
  (let (lines)
    (dolist (m memories)
      (let* ((label (format "[%s] %s" (or (gloss--get m :type) "note") (gloss--title m)))
             (id (format "{%s}" (or (gloss--get m :id) "")))
             (shown 0))
        (when (or (not stale-only) (gloss--stale-p m))
          (dolist (a (gloss--list (gloss--get m :anchors)))
            (let ((stale (gloss--stale-anchor-p m a))
                  (status (or (gloss--get a :status) "fresh")))
              (when (or (not stale-only) stale)
                (let ((path (or (gloss--get a :path) "")))
                  (when (string-prefix-p "file://" path)
                    (setq path (lsp--uri-to-path path)))
                  (push (format "%s:%d: %s%s%s %s"
                                (file-relative-name (expand-file-name path root) root)
                                (or (gloss--get a :start_line) 1)
                                (if stale "warning: " "")
                                label
                                (if (equal status "fresh") ""
                                  (format " (%s)" (replace-regexp-in-string "_" " " status)))
                                id)
                        lines)
                  (cl-incf shown)))))
          (when (= shown 0)
            (push (format "-: %s%s %s" label (if (gloss--stale-p m) " (stale)" "") id) lines)))))
    (nreverse lines)))

(defun gloss--show-list (memories title stale-only)
  "Show MEMORIES in `gloss-buffer-name' under TITLE (STALE-ONLY filters)."
  (let* ((root (file-name-as-directory (gloss--root)))
         (lines (gloss--lines memories root stale-only))
         (buf (get-buffer-create gloss-buffer-name)))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (setq default-directory root)
        (insert (format "%s: %d entr%s in %s\n\n" title (length lines)
                        (if (= (length lines) 1) "y" "ies") root))
        (dolist (l lines) (insert l "\n")))
      (compilation-mode)
      (goto-char (point-min)))
    (display-buffer buf)
    (message "gloss: %d %s" (length lines) (if stale-only "stale" "entries"))
    lines))

;;;###autoload
(defun gloss-list ()
  "List all memories (`gloss.list') in a `compilation-mode' buffer."
  (interactive)
  (gloss--show-list (gloss--memories (gloss-exec "gloss.list")) "gloss memories" nil))

;;;###autoload
(defun gloss-stale ()
  "List stale memories (`gloss.list' with stale: the server filters)."
  (interactive)
  (gloss--show-list (gloss--memories (gloss-exec "gloss.list" (list :stale t)))
                    "gloss stale memories" t))

;;;###autoload
(defun gloss-check ()
  "Re-resolve every anchor (`gloss.check') and list the stale memories."
  (interactive)
  (prog1 (gloss--show-list (gloss--memories (gloss-exec "gloss.check")) "gloss check" t)
    (gloss--after-change)))

;;;###autoload
(defun gloss-search (query)
  "Search memories for QUERY."
  (interactive "sSearch memories: ")
  (gloss--show-list (gloss--memories (gloss-exec "gloss.search" (list :query query)))
                    (format "gloss search %S" query) nil))

;;;; Showing memories

(defun gloss--render (memories)
  "Plain-text rendering of MEMORIES."
  (mapconcat
   (lambda (m)
     (concat (propertize (gloss--title m) 'face 'bold)
             (format "  [%s]%s  {%s}\n" (or (gloss--get m :type) "note")
                     (if (gloss--stale-p m) (propertize " stale" 'face 'warning) "")
                     (or (gloss--get m :id) ""))
             (string-trim (or (gloss--get m :body) "")) "\n"
             (mapconcat (lambda (a)
                          (format "  %s:%s-%s %s\n" (gloss--get a :path)
                                  (gloss--get a :start_line) (gloss--get a :end_line)
                                  (or (gloss--get a :status) "")))
                        (gloss--list (gloss--get m :anchors)) "")))
   memories "\n"))

(defun gloss--show-memories (memories)
  "Display MEMORIES in a help-like buffer."
  (if (null memories)
      (message "gloss: no memories here")
    (with-help-window (get-buffer-create "*gloss memory*")
      (with-current-buffer standard-output
        (insert (gloss--render memories))))))

(defun gloss--location-at-point ()
  "{uri, range} of point."
  (let ((pos (gloss--position (point))))
    (list :uri (lsp--buffer-uri) :range (list :start pos :end pos))))

;;;###autoload
(defun gloss-show ()
  "Show the memories at point (`gloss.memoriesAt')."
  (interactive)
  (gloss--show-memories (gloss--memories (gloss-exec "gloss.memoriesAt" (gloss--location-at-point)))))

(defun gloss--action-show-memories (action)
  "Code lens handler for `gloss.showMemories' ACTION."
  (let ((arg (car (gloss--list (gloss--get action :arguments)))))
    (gloss--show-memories
     (gloss--memories (gloss-exec "gloss.memoriesAt" (or arg (gloss--location-at-point)))))))

(defun gloss--action-forward (action)
  "Send ACTION (a Command from a code action or lens) to the gloss server."
  (prog1 (gloss-exec (gloss--get action :command)
                     (car (gloss--list (gloss--get action :arguments))))
    (gloss--after-change)))

;;;; Changing memories

;;;###autoload
(defun gloss-remember (beg end type text)
  "Remember the region BEG..END as a memory of TYPE with TEXT.
Interactively asks for TYPE and TEXT; empty TEXT makes the server open a
Markdown draft instead."
  (interactive
   (if (use-region-p)
       (list (region-beginning) (region-end)
             (completing-read "Memory type: " gloss-memory-types nil t nil nil "note")
             (read-string "Remember: "))
     (user-error "Select the code to remember first")))
  (let* ((arg (list :uri (lsp--buffer-uri) :range (gloss--range beg end) :type type))
         (text (string-trim (or text ""))))
    (unless (string-empty-p text)
      (setq arg (append arg (list :text text))))
    (let ((result (gloss-exec "gloss.remember" arg)))
      (deactivate-mark)
      (unless (string-empty-p text)
        (message "gloss: remembered %S" (if result (gloss--title result) text)))
      (gloss--after-change)
      result)))

(defun gloss--read-memory (&optional id)
  "The memory with ID, or one chosen among those at point."
  (if (and id (not (string-empty-p id)))
      (or (car (gloss--memories (gloss-exec "gloss.show" (list :id id))))
          (list :id id))
    (let* ((memories (or (gloss--memories (gloss-exec "gloss.memoriesAt" (gloss--location-at-point)))
                         (user-error "No memory at point")))
           (choices (mapcar (lambda (m) (cons (format "[%s] %s {%s}" (gloss--get m :type)
                                                      (gloss--title m) (gloss--get m :id))
                                              m))
                            memories)))
      (if (= (length choices) 1)
          (cdar choices)
        (cdr (assoc (completing-read "Memory: " choices nil t) choices))))))

(defun gloss--id-at-point ()
  "Memory id on the current line of the gloss list buffer, if any."
  (save-excursion
    (beginning-of-line)
    (when (re-search-forward "{\\([^}]+\\)}[ \t]*$" (line-end-position) t)
      (match-string-no-properties 1))))

;;;###autoload
(defun gloss-verify (&optional id)
  "Mark the memory ID (default: at point) as still true."
  (interactive (list (gloss--id-at-point)))
  (let ((m (gloss--read-memory id)))
    (gloss-exec "gloss.verify" (list :id (gloss--get m :id)))
    (gloss--after-change)
    (message "gloss: verified %S" (gloss--title m))))

;;;###autoload
(defun gloss-forget (&optional id)
  "Delete the memory ID (default: at point) after confirmation."
  (interactive (list (gloss--id-at-point)))
  (let ((m (gloss--read-memory id)))
    (when (yes-or-no-p (format "Forget %S? " (gloss--title m)))
      (gloss-exec "gloss.forget" (list :id (gloss--get m :id)))
      (gloss--after-change)
      (message "gloss: forgot %S" (gloss--title m)))))

;;;###autoload
(defun gloss-edit (&optional id)
  "Edit the text of the memory ID (default: at point)."
  (interactive (list (gloss--id-at-point)))
  (let* ((m (gloss--read-memory id))
         (text (read-string "Memory text: " (gloss--get m :body))))
    (unless (equal text (gloss--get m :body))
      (gloss-exec "gloss.update" (list :id (gloss--get m :id) :text text))
      (gloss--after-change)
      (message "gloss: updated %S" (gloss--title m)))))

;;;###autoload
(defun gloss-status ()
  "Echo memory counts (`gloss.status')."
  (interactive)
  (let ((r (gloss-exec "gloss.status")))
    (message "gloss: %s memories, %s stale, %s files, %s symbols"
             (or (gloss--get r :memories) 0) (or (gloss--get r :stale) 0)
             (or (gloss--get r :files) 0) (or (gloss--get r :symbols) 0))))

;;;; The lsp-mode client

(defun gloss--activate-p (file-name mode)
  "Whether gloss should manage FILE-NAME in major MODE."
  (and file-name
       (or (null gloss-major-modes)
           (apply #'provided-mode-derived-p mode gloss-major-modes))))

(defun gloss--language-id (&optional _buffer)
  "Language id for didOpen: lsp-mode's own, else \"plaintext\"."
  (or (ignore-errors
        (cl-letf (((symbol-function 'lsp-warn) #'ignore))
          (lsp-buffer-language)))
      "plaintext"))

(defun gloss--action-handlers ()
  "Action handlers: the lens command is shown here, the rest forwarded."
  (let ((h (make-hash-table :test 'equal)))
    (dolist (c gloss--server-commands)
      (puthash c #'gloss--action-forward h))
    (puthash "gloss.showMemories" #'gloss--action-show-memories h)
    h))

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection
                   (lambda () (cons gloss-executable gloss-args))
                   (lambda () (executable-find gloss-executable)))
  :activation-fn #'gloss--activate-p
  :add-on? t
  :priority -1
  :server-id 'gloss
  :language-id #'gloss--language-id
  :initialization-options (lambda () (when gloss-embedder (list :embedder gloss-embedder)))
  :environment-fn (lambda () '(("GLOSS_EMBEDDER" . gloss-embedder)))
  :action-handlers (gloss--action-handlers)))

(provide 'gloss)
;;; gloss.el ends here
