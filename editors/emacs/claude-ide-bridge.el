;;; claude-ide-bridge.el --- Connect the Claude Code CLI: selections, diffs, diagnostics  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The claude-ide-bridge authors

;; Author: The claude-ide-bridge authors
;; Maintainer: The claude-ide-bridge authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, convenience
;; URL: https://github.com/claude-ide-bridge/claude-ide-bridge

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Connects the Claude Code CLI to Emacs.  `claude-ide-bridge-mode' runs
;; "claude-ide-bridge serve --stdio" (the Go server the CLI connects to,
;; which owns every rule of the protocol) and speaks its editor protocol
;; over jsonrpc.el.  Claude sees your selection (region, rectangle or
;; cursor) and open files, shows its edits as Ediff sessions (C-c C-c
;; accepts, C-c C-k rejects; Claude writes the file and the buffer
;; follows), reads flymake or flycheck diagnostics; `claude-ide-bridge-send'
;; mentions the region, file or Dired's files; `claude-ide-bridge-agent'
;; runs claude, gemini or qwen in eat, vterm or term (docs/emacs.md);
;; `claude-ide-bridge-permissions' answers Claude's permission questions.
;; M-x claude-ide-bridge-install gets the binary (SHA-256 checked) or builds it.

;;; Code:

(require 'cl-lib)
(require 'filenotify)
(require 'jsonrpc)
(require 'project)
(require 'rect)
(require 'seq)
(require 'subr-x)

(eval-when-compile (require 'ediff) (require 'flymake))
(defvar flycheck-current-errors) (defvar flycheck-mode) (defvar evil-state)
(defvar evil-visual-selection) (defvar evil-visual-beginning) (defvar evil-visual-end)
(declare-function flycheck-error-pos "flycheck" (err)) (declare-function flycheck-error-level "flycheck" (err))
(declare-function flycheck-error-region-for-mode "flycheck" (err mode))
(declare-function flycheck-error-message "flycheck" (err)) (declare-function flycheck-error-id "flycheck" (err))
(declare-function flycheck-error-checker "flycheck" (err)) (declare-function vterm "vterm" (&optional arg))
(declare-function eat-make "eat" (name program &optional startfile &rest switches))
(declare-function dired-get-marked-files "dired") (declare-function term-char-mode "term" ())
(declare-function ediff-really-quit "ediff-util" (reverse-default-keep-variants))
(defvar vterm-shell) (defvar vterm-buffer-name)

;;;; Customization

(defgroup claude-ide-bridge nil
  "Claude Code in Emacs through claude-ide-bridge."
  :group 'tools
  :prefix "claude-ide-bridge-"
  :link '(url-link "https://github.com/claude-ide-bridge/claude-ide-bridge"))

(defcustom claude-ide-bridge-program nil
  "The claude-ide-bridge binary.
nil finds it: the one `claude-ide-bridge-install' put in place, else
claude-ide-bridge on the variable `exec-path', else bin/ of this
package's checkout."
  :type '(choice (const :tag "Find it" nil) file))

(defcustom claude-ide-bridge-serve-args nil
  "More arguments for \"serve --stdio\", e.g. (\"--log-file\" \"/tmp/b.log\")."
  :type '(repeat string))

(defcustom claude-ide-bridge-ide-name nil
  "The IDE name Claude shows (its /ide list and status line).
nil: \"Emacs (<project folder name>)\", as Neovim and Vim name theirs."
  :type '(choice (const :tag "Emacs (<project folder name>)" nil) string))

(defcustom claude-ide-bridge-position-encoding 'utf-8
  "How the character of a position is counted.
`utf-8' counts bytes (as the Neovim plugin does), `utf-16' counts
UTF-16 code units (as VS Code does).  Claude gets them unchanged."
  :type '(choice (const utf-8) (const utf-16)))

(defcustom claude-ide-bridge-selection-delay 0.05
  "Seconds of quiet before a changed selection is sent to Claude."
  :type 'number)

(defcustom claude-ide-bridge-follow-disk t
  "Whether file buffers follow the disk when Claude writes a file.
An unmodified buffer is reverted; a modified one keeps its text and
you get one message naming the file."
  :type 'boolean)

(defcustom claude-ide-bridge-claude-program "claude"
  "The Claude Code CLI `claude-ide-bridge-claude' runs."
  :type 'string)

(defcustom claude-ide-bridge-claude-args nil
  "Arguments `claude-ide-bridge-claude' passes to the CLI."
  :type '(repeat string))

(defcustom claude-ide-bridge-permission-mode nil
  "The --permission-mode of the claude that `claude-ide-bridge-claude' runs.
nil: the bridge decides, as for Neovim: \"default\" (each edit shown
here as a diff) unless the arguments or your Claude settings choose a
mode; the CLI's own default (auto) writes edits without a diff.  A
string: that mode.  `none': no flag, and not the bridge's --settings."
  :type '(choice (const :tag "The bridge decides" nil) (const :tag "No flag" none)
                 (const "default") (const "acceptEdits") (const "plan") string))

(defcustom claude-ide-bridge-model-tools t
  "Whether claude gets the bridge's code tools (--mcp-config)."
  :type 'boolean)

(defcustom claude-ide-bridge-terminal 'auto
  "Where `claude-ide-bridge-claude' runs claude.
`auto' uses eat when installed, else vterm, else `term'."
  :type '(choice (const auto) (const eat) (const vterm) (const term)))

(defcustom claude-ide-bridge-claude-display-action
  '((display-buffer-reuse-window display-buffer-in-side-window)
    (side . right) (window-width . 0.45))
  "The `display-buffer' action that shows an agent's terminal."
  :type 'sexp)

(defcustom claude-ide-bridge-install-base-url
  "https://github.com/claude-ide-bridge/claude-ide-bridge/releases/download"
  "Where `claude-ide-bridge-install' downloads release archives from."
  :type 'string)

(defcustom claude-ide-bridge-install-directory
  (locate-user-emacs-file "claude-ide-bridge/bin/")
  "Where `claude-ide-bridge-install' puts the binary."
  :type 'directory)

(defcustom claude-ide-bridge-permissions t
  "Which of Claude's permission questions Emacs asks too.
t: all; nil: none (Claude's terminal alone asks); a list of tool
names: those, a name ending in * a prefix: (\"Bash\" \"mcp__*\").
The terminal asks as well and the first answer wins.  Read when the
bridge starts."
  :type '(choice (const :tag "All" t) (const :tag "None" nil) (repeat :tag "These tools" string)))

(defcustom claude-ide-bridge-log-events nil
  "Whether to keep the protocol's messages in a buffer (for bug reports)."
  :type 'boolean)

(defconst claude-ide-bridge-version "0.1.0"
  "This package's version; `claude-ide-bridge-install' fetches its release.")

(defconst claude-ide-bridge--source-dir
  (file-name-directory (or load-file-name buffer-file-name default-directory))
  "The directory this file was loaded from.")

;;;; State

(defvar claude-ide-bridge--conn nil "The jsonrpc connection to the bridge.")
(defvar claude-ide-bridge--info nil "The bridge's answer to initialize (a plist).")
(defvar claude-ide-bridge--agents nil "Who is connected, by agent: (:claude 1 :gemini 1).")
(defvar claude-ide-bridge--folders nil "The workspace folders the bridge was given.")
(defvar claude-ide-bridge--stopping nil "Non-nil while the mode stops the bridge.")
(defvar claude-ide-bridge--diffs (make-hash-table :test #'equal) "Shown diffs by tab name.")
(defvar claude-ide-bridge--windows nil "The window configuration before the diffs.")
(defvar claude-ide-bridge--selection-timer nil)
(defvar claude-ide-bridge--last-selection nil "The last selection sent.")
(defvar claude-ide-bridge--active-buffer nil "The file buffer the user was last in.")
(defvar claude-ide-bridge--terminals nil "Each agent's terminal buffer: (AGENT . BUFFER).")
(defvar claude-ide-bridge--paused nil "Whether sharing is paused.")
(defvar claude-ide-bridge--questions nil "Claude's pending permission questions, oldest first.")
(defvar-local claude-ide-bridge--diff nil
  "The diff this buffer belongs to (its proposal, original or Ediff control).")
(put 'claude-ide-bridge--diff 'permanent-local t)

(defun claude-ide-bridge--msg (format &rest args)
  "Show FORMAT with ARGS as a message of this package."
  (message "claude-ide-bridge: %s" (apply #'format-message format args)))

(defun claude-ide-bridge--ready-p ()
  "Return non-nil when the bridge is up and has answered initialize."
  (and claude-ide-bridge--conn claude-ide-bridge--info
       (jsonrpc-running-p claude-ide-bridge--conn)))

;;;; Positions

(defconst claude-ide-bridge--invalid-re "[^[:ascii:][:multibyte:]]"
  "Characters JSON cannot carry: raw bytes.")

(defun claude-ide-bridge--json-text (string)
  "STRING with each character JSON cannot carry replaced by U+FFFD."
  (if (string-match-p claude-ide-bridge--invalid-re string)
      (replace-regexp-in-string claude-ide-bridge--invalid-re "\ufffd" string t t)
    string))

(defun claude-ide-bridge--units (string)
  "Length of STRING in `claude-ide-bridge-position-encoding' units.
A raw byte counts as one byte, as it is in the file."
  (cond ((= (string-bytes string) (length string)) (length string))
        ((eq claude-ide-bridge-position-encoding 'utf-16)
         (/ (length (encode-coding-string string 'utf-16le t)) 2))
        (t (length (encode-coding-string string 'utf-8-unix t)))))

(defun claude-ide-bridge--pos (point)
  "The protocol position {line, character} of POINT."
  (save-excursion
    (save-restriction (widen)
      (goto-char point)
      (list :line (1- (line-number-at-pos point t))
            :character (claude-ide-bridge--units
                        (buffer-substring-no-properties (line-beginning-position) point))))))

(defun claude-ide-bridge--point (pos)
  "The buffer position of protocol position POS, clamped to the buffer."
  (save-excursion
    (save-restriction (widen)
      (goto-char (point-min))
      (forward-line (max 0 (or (plist-get pos :line) 0)))
      (let ((want (max 0 (or (plist-get pos :character) 0)))
            (eol (line-end-position))
            (n 0))
        (while (and (< (point) eol) (< n want))
          (setq n (+ n (claude-ide-bridge--units (string (char-after)))))
          (forward-char))
        (point)))))

;;;; Selections

(defun claude-ide-bridge--file-buffer-p (&optional buffer)
  "Non-nil when BUFFER (default current) visits a file."
  (buffer-local-value 'buffer-file-name (or buffer (current-buffer))))

(defun claude-ide-bridge--sel (beg end &optional epos)
  "The selection payload of BEG to END, END exclusive, in the current buffer.
EPOS is END's protocol position when it is not END's own."
  (let ((s (claude-ide-bridge--pos beg)) (e (or epos (claude-ide-bridge--pos end))))
    (list :text (claude-ide-bridge--json-text (buffer-substring-no-properties beg end))
          :filePath (expand-file-name buffer-file-name)
          :selection (list :start s :end e :isEmpty (if (equal s e) t :json-false)))))

(defun claude-ide-bridge--rectangle-span (mark point)
  "The payload of the rectangle between MARK and POINT.
As the Neovim plugin sends a block: the contiguous span from the
block's first position to its last; on an empty last row it ends at
character 1 of that row, so Claude counts the row."
  (let* ((bounds (extract-rectangle-bounds (min mark point) (max mark point)))
         (beg (apply #'min (mapcar #'car bounds)))
         (end (apply #'max (mapcar #'cdr bounds)))
         (epos (claude-ide-bridge--pos end)))
    (save-excursion
      (goto-char end)
      (when (and (bolp) (eolp) (> end beg))
        (setq epos (plist-put epos :character 1))))
    (claude-ide-bridge--sel beg end epos)))

(defun claude-ide-bridge-selection (&optional window)
  "The selection of WINDOW (default the selected one) as Claude gets it.
nil when WINDOW does not show a file buffer.  The region when it is
active and not empty, a rectangle in `rectangle-mark-mode', else the
cursor alone."
  (let* ((win (or window (selected-window)))
         (buf (window-buffer win)))
    (when (claude-ide-bridge--file-buffer-p buf)
      (with-current-buffer buf
        (let ((pt (window-point win)) (here (eq win (selected-window))))
          (cond
           ((and here (bound-and-true-p evil-local-mode) (eq evil-state 'visual))
            (claude-ide-bridge--evil-span))
           ((not (and here (region-active-p) (/= (mark) pt)))
            (claude-ide-bridge--sel pt pt))
           ((bound-and-true-p rectangle-mark-mode)
            (claude-ide-bridge--rectangle-span (mark) pt))
           (t (claude-ide-bridge--sel (region-beginning) (region-end)))))))))

(defun claude-ide-bridge--evil-span ()
  "The payload of Evil's Visual selection, as the Neovim plugin sends Vim's.
Linewise: to the last line's end; an empty last line takes its line
break (to the next line's start), or ends at character 1 on the
buffer's last line.  Blockwise as a rectangle."
  (let ((b (marker-position evil-visual-beginning)) (e (marker-position evil-visual-end)))
    (pcase evil-visual-selection
      ('block (claude-ide-bridge--rectangle-span b e))
      ('line (save-excursion
               (goto-char (max b (1- e)))
               (let ((eol (line-end-position)))
                 (cond ((> eol (line-beginning-position)) (claude-ide-bridge--sel b eol))
                       ((< (1+ eol) (point-max)) (claude-ide-bridge--sel b (1+ eol)))
                       (t (claude-ide-bridge--sel
                           b eol (list :line (1- (line-number-at-pos eol t)) :character 1)))))))
      (_ (save-excursion
           ;; A composing character goes with the character before it, unless that is
           ;; a control or a raw byte (as for Neovim).
           (while (and (memq (get-char-code-property (or (char-after e) ?a) 'general-category) '(Mn Me))
                       (not (memq (get-char-code-property (char-before e) 'general-category) '(Cc Cf Cn))))
             (setq e (1+ e)))
           (goto-char (1- e))
           ;; The buffer's final line break is not taken: v$ on the last line.
           (if (not (and (= e (point-max)) (> e b) (eq (char-after) ?\n)))
               (claude-ide-bridge--sel b e)
             (claude-ide-bridge--sel b (point) (and (bolp) (list :line (1- (line-number-at-pos (point) t))
                                                                  :character 1)))))))))

(defun claude-ide-bridge--send-selection ()
  "Send the selection of the selected window when it changed."
  (setq claude-ide-bridge--selection-timer nil)
  (when (claude-ide-bridge--ready-p)
    (let ((sel (claude-ide-bridge-selection)))
      (when sel
        (setq claude-ide-bridge--active-buffer (window-buffer))
        (unless (equal sel claude-ide-bridge--last-selection)
          (setq claude-ide-bridge--last-selection sel)
          (jsonrpc-notify claude-ide-bridge--conn :selectionChanged sel))))))

(defun claude-ide-bridge--post-command ()
  "Schedule sending the selection (debounced)."
  (when claude-ide-bridge--selection-timer
    (cancel-timer claude-ide-bridge--selection-timer))
  (setq claude-ide-bridge--selection-timer
        (run-with-timer claude-ide-bridge-selection-delay nil
                        #'claude-ide-bridge--send-selection)))

;;;; Files and editors

(defun claude-ide-bridge--path (params method)
  "The filePath of PARAMS for METHOD, or an invalid-params error."
  (let ((p (plist-get params :filePath)))
    (unless (and (stringp p) (not (string-empty-p p)))
      (jsonrpc-error :code -32602 :message (format "%s needs filePath" method)))
    p))

(defun claude-ide-bridge--language-id (&optional buffer)
  "A language id for BUFFER's major mode (\"go\" for `go-mode')."
  (let ((name (symbol-name (buffer-local-value 'major-mode (or buffer (current-buffer))))))
    (replace-regexp-in-string "\\(-ts\\)?-mode\\'" "" name)))

(defun claude-ide-bridge--line-count ()
  "Lines in the current buffer, as an editor counts them (at least 1)."
  (save-restriction (widen) (max 1 (count-lines (point-min) (point-max)))))

(defun claude-ide-bridge--ordinary-window-p (win)
  "Return non-nil when WIN is not an agent's terminal nor a diff."
  (let ((buf (window-buffer win)))
    (not (or (rassq buf claude-ide-bridge--terminals)
             (buffer-local-value 'claude-ide-bridge--diff buf)
             (window-parameter win 'window-side)
             (window-minibuffer-p win)))))

(defun claude-ide-bridge--editor-window ()
  "A window to show a file in: the last file window, else an ordinary one."
  (let ((last (and (buffer-live-p claude-ide-bridge--active-buffer)
                   (get-buffer-window claude-ide-bridge--active-buffer))))
    (cond (last last)
          ((claude-ide-bridge--ordinary-window-p (selected-window)) (selected-window))
          ((seq-find #'claude-ide-bridge--ordinary-window-p (window-list)))
          (t (split-window (frame-root-window) nil 'left)))))

(defun claude-ide-bridge--open-file (params)
  "Handle openFile PARAMS."
  (let ((path (claude-ide-bridge--path params "openFile")))
    (unless (file-exists-p path)
      (jsonrpc-error :code -32000 :message (format "cannot open %s: no such file" path)))
    (let ((buf (find-file-noselect path))
          (sel (plist-get params :selection)))
      (unless (eq (plist-get params :makeFrontmost) :json-false)
        (select-window (claude-ide-bridge--editor-window))
        (switch-to-buffer buf)
        (when sel
          (let ((s (claude-ide-bridge--point (plist-get sel :start)))
                (e (claude-ide-bridge--point (plist-get sel :end))))
            (goto-char e)
            (if (= s e) (deactivate-mark) (push-mark s t t)))))
      (with-current-buffer buf
        (list :languageId (claude-ide-bridge--language-id)
              :lineCount (claude-ide-bridge--line-count))))))

(defun claude-ide-bridge--file-buffers ()
  "The live buffers visiting files."
  (seq-filter #'claude-ide-bridge--file-buffer-p (buffer-list)))

(defun claude-ide-bridge--active ()
  "The file buffer the user is in, or was last in."
  (cond ((claude-ide-bridge--file-buffer-p (window-buffer)) (window-buffer))
        ((buffer-live-p claude-ide-bridge--active-buffer) claude-ide-bridge--active-buffer)))

(defun claude-ide-bridge--open-editors (_params)
  "Handle getOpenEditors."
  (let ((active (claude-ide-bridge--active)))
    (list :editors
          (vconcat
           (mapcar (lambda (buf)
                     (let ((name (expand-file-name (buffer-file-name buf))))
                       (list :filePath name
                             :isActive (if (eq buf active) t :json-false)
                             :isDirty (if (buffer-modified-p buf) t :json-false)
                             :languageId (claude-ide-bridge--language-id buf)
                             :label (file-name-nondirectory name))))
                   (claude-ide-bridge--file-buffers))))))

(defun claude-ide-bridge--current-selection (_params)
  "Handle getCurrentSelection."
  (let* ((buf (claude-ide-bridge--active))
         (win (and buf (get-buffer-window buf))))
    (list :selection
          (cond (win (claude-ide-bridge-selection win))
                (buf (with-current-buffer buf (claude-ide-bridge--sel (point) (point))))))))

(defun claude-ide-bridge--dirty (params)
  "Handle checkDocumentDirty PARAMS."
  (let ((buf (find-buffer-visiting (claude-ide-bridge--path params "checkDocumentDirty"))))
    (list :isOpen (if buf t :json-false)
          :isDirty (if (and buf (buffer-modified-p buf)) t :json-false)
          :isUntitled :json-false)))

(defun claude-ide-bridge--save (params)
  "Handle saveDocument PARAMS."
  (let* ((path (claude-ide-bridge--path params "saveDocument"))
         (buf (find-buffer-visiting path)))
    (if (not buf)
        (list :isOpen :json-false :saved :json-false)
      (condition-case err
          (with-current-buffer buf (save-buffer))
        (error (jsonrpc-error :code -32000
                              :message (format "could not save %s: %s" (file-name-nondirectory path)
                                               (error-message-string err)))))
      (list :isOpen t :saved (if (buffer-modified-p buf) :json-false t)))))

(defun claude-ide-bridge--set-buffer-text (params)
  "Handle setBufferText PARAMS: the text, unsaved, in the file's buffer."
  (let ((path (claude-ide-bridge--path params "setBufferText"))
        (text (plist-get params :text)))
    (unless (stringp text)
      (jsonrpc-error :code -32602 :message "setBufferText needs text"))
    (with-current-buffer (find-file-noselect path)
      (save-restriction (widen)
        (let ((inhibit-read-only t))
          (atomic-change-group
            (delete-region (point-min) (point-max))
            (insert text))))
      (set-buffer-modified-p t))
    (make-hash-table)))

;;;; Diagnostics

(defun claude-ide-bridge--range (beg end)
  "The protocol range of BEG to END."
  (list :start (claude-ide-bridge--pos beg) :end (claude-ide-bridge--pos end)))

(defun claude-ide-bridge--flymake-item (d)
  "The protocol diagnostic of flymake diagnostic D."
  (let* ((type (flymake-diagnostic-type d))
         (cat (or (get type 'flymake-category) type))
         (backend (flymake-diagnostic-backend d)))
    (append
     (list :message (claude-ide-bridge--json-text (flymake-diagnostic-text d))
           :severity (pcase cat
                       ((or 'flymake-error :error) "Error")
                       ((or 'flymake-warning :warning) "Warning")
                       (_ "Info"))
           :range (claude-ide-bridge--range (flymake-diagnostic-beg d)
                                            (flymake-diagnostic-end d)))
     (and (symbolp backend) backend
          (list :source (replace-regexp-in-string
                         "-flymake\\(-backend\\)?\\'" "" (symbol-name backend)))))))

(defun claude-ide-bridge--flycheck-item (e)
  "The protocol diagnostic of flycheck error E."
  (let ((region (or (flycheck-error-region-for-mode e 'symbols)
                    (cons (flycheck-error-pos e) (flycheck-error-pos e))))
        (id (flycheck-error-id e)))
    (append
     (list :message (claude-ide-bridge--json-text (or (flycheck-error-message e) ""))
           :severity (pcase (flycheck-error-level e)
                       ('error "Error") ('warning "Warning") (_ "Info"))
           :range (claude-ide-bridge--range (car region) (cdr region))
           :source (format "%s" (flycheck-error-checker e)))
     (and id (list :code (format "%s" id))))))

(defun claude-ide-bridge--buffer-diagnostics (buf)
  "The protocol diagnostics of BUF: flycheck's if it is on there, else flymake's."
  (with-current-buffer buf
    (cond ((bound-and-true-p flycheck-mode)
           (mapcar #'claude-ide-bridge--flycheck-item flycheck-current-errors))
          ((bound-and-true-p flymake-mode)
           (mapcar #'claude-ide-bridge--flymake-item (flymake-diagnostics))))))

(defun claude-ide-bridge--diagnostics (params)
  "Handle getDiagnostics PARAMS (one file, or every file with some)."
  (let ((path (plist-get params :filePath)))
    (list :files
          (vconcat
           (if (and (stringp path) (not (string-empty-p path)))
               (let ((buf (find-buffer-visiting path)))
                 (list (list :filePath path
                             :diagnostics (vconcat (and buf (claude-ide-bridge--buffer-diagnostics buf))))))
             (delq nil
                   (mapcar (lambda (buf)
                             (let ((ds (claude-ide-bridge--buffer-diagnostics buf)))
                               (and ds (list :filePath (expand-file-name (buffer-file-name buf))
                                             :diagnostics (vconcat ds)))))
                           (sort (claude-ide-bridge--file-buffers)
                                 (lambda (a b) (string< (buffer-file-name a)
                                                        (buffer-file-name b)))))))))))

;;;; Diffs

(cl-defstruct (claude-ide-bridge--diff (:constructor claude-ide-bridge--diff-new) (:copier nil))
  "A proposal shown for the bridge's showDiff."
  tab path number proposal original control tick state)

(defvar claude-ide-bridge-diff-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'claude-ide-bridge-accept)
    (define-key map (kbd "C-c C-k") #'claude-ide-bridge-reject)
    map)
  "Keys of a diff's buffers: accept and reject Claude's proposal.")

(define-minor-mode claude-ide-bridge-diff-mode
  "Minor mode of a Claude proposal's buffers.
\\<claude-ide-bridge-diff-mode-map>\\[claude-ide-bridge-accept] accepts the proposal (as edited), \
\\[claude-ide-bridge-reject] rejects it."
  :lighter " Claude-Diff"
  :keymap claude-ide-bridge-diff-mode-map)

(defun claude-ide-bridge--diff-here ()
  "The pending or accepted diff of the current buffer, else the only one."
  (or claude-ide-bridge--diff
      (let ((all (hash-table-values claude-ide-bridge--diffs))) (and (= (length all) 1) (car all)))
      (user-error "No Claude diff here")))

(defun claude-ide-bridge--proposal-mode (path)
  "Turn on the major mode `auto-mode-alist' gives PATH, in the current buffer."
  (let ((mode (assoc-default path auto-mode-alist #'string-match)))
    (when (and (consp mode) (not (functionp mode))) (setq mode (car mode)))
    (when (functionp mode) (ignore-errors (funcall mode)))))

(defun claude-ide-bridge--show-diff (params)
  "Handle showDiff PARAMS: the proposal, editable, in an Ediff session."
  (let ((tab (plist-get params :tabName))
        (path (plist-get params :filePath))
        (new-path (or (plist-get params :newFilePath) (plist-get params :filePath)))
        (text (plist-get params :newContents)))
    (unless (and (stringp tab) (stringp path) (stringp text))
      (jsonrpc-error :code -32602 :message "showDiff needs tabName, filePath and newContents"))
    (let ((buf (find-buffer-visiting path)))
      (when (and buf (buffer-modified-p buf))
        (jsonrpc-error :code -32000
                       :message (format "%s has unsaved changes; save or discard them first"
                                        (file-name-nondirectory path)))))
    (let ((old (gethash tab claude-ide-bridge--diffs)))
      (when old (claude-ide-bridge--close-view old)))
    (when (hash-table-empty-p claude-ide-bridge--diffs)
      (setq claude-ide-bridge--windows (current-window-configuration)))
    (let* ((d (claude-ide-bridge--diff-new :tab tab :path path :number (plist-get params :proposal) :state 'pending))
           (who (claude-ide-bridge--who (plist-get params :agent)))
           (orig (generate-new-buffer (format "*%s original: %s*" who (file-name-nondirectory path))))
           (prop (generate-new-buffer tab)))
      (with-current-buffer orig
        (when (and (not (eq (plist-get params :fileExists) :json-false))
                   (file-readable-p path))
          (insert-file-contents path))
        (claude-ide-bridge--proposal-mode path)
        (setq buffer-read-only t)
        (set-buffer-modified-p nil)
        (setq claude-ide-bridge--diff d))
      (with-current-buffer prop
        (insert text)
        (setq buffer-undo-list nil)     ; Claude's text is not an edit C-/ undoes
        (goto-char (point-min))
        (claude-ide-bridge--proposal-mode new-path)
        (set-buffer-modified-p nil)
        (setq claude-ide-bridge--diff d)
        (claude-ide-bridge-diff-mode 1)
        (setq header-line-format
              (substitute-command-keys
               (concat who "'s proposal: edit it, \\<claude-ide-bridge-diff-mode-map>\\[claude-ide-bridge-accept] accepts, \\[claude-ide-bridge-reject] rejects")))
        (add-hook 'kill-buffer-hook #'claude-ide-bridge--user-closed nil t))
      (setf (claude-ide-bridge--diff-original d) orig
            (claude-ide-bridge--diff-proposal d) prop
            (claude-ide-bridge--diff-tick d) (buffer-chars-modified-tick prop))
      (puthash tab d claude-ide-bridge--diffs)
      (claude-ide-bridge--ediff d)
      (make-hash-table))))

(defun claude-ide-bridge--ediff (d)
  "Start the Ediff session of diff D, original left, proposal right."
  (require 'ediff)
  ;; Not in Claude's side window: Ediff makes the window it starts in the frame's only one.
  (select-window (claude-ide-bridge--editor-window))
  (let ((ediff-window-setup-function 'ediff-setup-windows-plain)
        (ediff-split-window-function #'split-window-horizontally))
    (ediff-buffers (claude-ide-bridge--diff-original d)
                   (claude-ide-bridge--diff-proposal d)
                   (list (lambda ()
                           (setf (claude-ide-bridge--diff-control d) (current-buffer))
                           (setq claude-ide-bridge--diff d)
                           (claude-ide-bridge-diff-mode 1)
                           (add-hook 'ediff-quit-hook #'claude-ide-bridge--user-closed nil t)))))
  ;; Typing goes to the proposal.
  (when-let* ((win (get-buffer-window (claude-ide-bridge--diff-proposal d)))) (select-window win)))

(defun claude-ide-bridge--decide (d method &optional extra)
  "Send METHOD (diffAccepted or diffRejected) for diff D with EXTRA params.
The proposal's number is always named."
  (when (claude-ide-bridge--ready-p)
    (jsonrpc-async-request
     claude-ide-bridge--conn method
     (append (list :tabName (claude-ide-bridge--diff-tab d)
                   :proposal (claude-ide-bridge--diff-number d))
             extra)
     :success-fn #'ignore
     :error-fn (lambda (err)
                 (claude-ide-bridge--msg "%s: %s" (claude-ide-bridge--diff-tab d)
                                         (plist-get err :message))))))

(defun claude-ide-bridge-accept ()
  "Accept Claude's proposal shown here, with your edits; Claude writes the file."
  (interactive)
  (let* ((d (claude-ide-bridge--diff-here))
         (prop (claude-ide-bridge--diff-proposal d)))
    (unless (buffer-live-p prop) (user-error "The proposal's buffer is gone"))
    (unless (eq (claude-ide-bridge--diff-state d) 'pending)
      (user-error "Already accepted; Claude is writing it"))
    (setf (claude-ide-bridge--diff-state d) 'accepted)
    (claude-ide-bridge--decide
     d :diffAccepted
     (unless (= (buffer-chars-modified-tick prop) (claude-ide-bridge--diff-tick d))
       (list :contents (plist-get (claude-ide-bridge--diff-text nil d) :text))))
    (with-current-buffer prop (set-buffer-modified-p nil))
    (claude-ide-bridge--msg "accepted %s" (file-name-nondirectory (claude-ide-bridge--diff-path d)))))

(defun claude-ide-bridge-reject ()
  "Reject Claude's proposal shown here."
  (interactive)
  (let ((d (claude-ide-bridge--diff-here)))
    (claude-ide-bridge--decide d :diffRejected)
    (claude-ide-bridge--close-view d)))

(defun claude-ide-bridge--user-closed ()
  "The user killed a proposal or quit its Ediff: a reject, unless it is closing."
  (let ((d claude-ide-bridge--diff))
    (when (and d (memq (claude-ide-bridge--diff-state d) '(pending accepted)))
      (setf (claude-ide-bridge--diff-state d) 'rejected)
      (claude-ide-bridge--decide d :diffRejected)
      (run-at-time 0 nil #'claude-ide-bridge--close-view d))))

(defun claude-ide-bridge--close-view (d)
  "Close everything shown for diff D and restore the windows."
  (unless (eq (claude-ide-bridge--diff-state d) 'closed)
    (setf (claude-ide-bridge--diff-state d) 'closed)
    (when (eq (gethash (claude-ide-bridge--diff-tab d) claude-ide-bridge--diffs) d)
      (remhash (claude-ide-bridge--diff-tab d) claude-ide-bridge--diffs))
    (let ((ctl (claude-ide-bridge--diff-control d)))
      (when (buffer-live-p ctl)
        (with-current-buffer ctl
          (let ((ediff-keep-variants t))
            (ignore-errors (ediff-really-quit nil))))))
    (dolist (b (list (claude-ide-bridge--diff-proposal d) (claude-ide-bridge--diff-original d)
                     (claude-ide-bridge--diff-control d)))
      (when (buffer-live-p b)
        (with-current-buffer b (set-buffer-modified-p nil))
        (kill-buffer b)))
    ;; The windows as they were before the first of the diffs shown.
    (let ((conf claude-ide-bridge--windows))
      (when (and conf (hash-table-empty-p claude-ide-bridge--diffs))
        (setq claude-ide-bridge--windows nil)
        (when (frame-live-p (window-configuration-frame conf))
          (set-window-configuration conf))))))

(defun claude-ide-bridge--diff-text (params &optional d)
  "Answer diffText PARAMS (or diff D): the proposal's text now, or nil."
  (let ((prop (claude-ide-bridge--diff-proposal (or d (gethash (plist-get params :tabName) claude-ide-bridge--diffs)
                                                    (claude-ide-bridge--diff-new)))))
    (list :text (and (buffer-live-p prop) (with-current-buffer prop
                                            (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))))))

(defun claude-ide-bridge--close-diff (params)
  "Handle closeDiff PARAMS (idempotent)."
  (let ((d (gethash (plist-get params :tabName) claude-ide-bridge--diffs)))
    (when d (claude-ide-bridge--close-view d)))
  (make-hash-table))

(defun claude-ide-bridge-diffs ()
  "The diffs shown now, as a list of (TAB-NAME . STATE)."
  (sort (mapcar (lambda (d) (cons (claude-ide-bridge--diff-tab d) (claude-ide-bridge--diff-state d)))
                (hash-table-values claude-ide-bridge--diffs))
        (lambda (a b) (string< (car a) (car b)))))

(defun claude-ide-bridge-close-all-diffs ()
  "Reject every pending diff and close them all (the bridge decides)."
  (interactive)
  (claude-ide-bridge--need-bridge)
  (jsonrpc-async-request
   claude-ide-bridge--conn :closeAllDiffs (make-hash-table)
   :success-fn (lambda (r) (claude-ide-bridge--msg "closed %s diff(s)" (plist-get r :closed)))
   :error-fn (lambda (e) (claude-ide-bridge--msg "%s" (plist-get e :message)))))

;;;; Following the disk

(defvar-local claude-ide-bridge--watch nil "This buffer's file watch.")
(defvar-local claude-ide-bridge--warned nil "The modtime last warned about.")
(defvar-local claude-ide-bridge--check-timer nil)

(defun claude-ide-bridge--watch-buffer ()
  "Watch the current buffer's file, so the buffer can follow the disk."
  (when (and claude-ide-bridge-follow-disk buffer-file-name (not claude-ide-bridge--watch)
             (not (file-remote-p buffer-file-name)))
    (let ((buf (current-buffer)))
      (setq claude-ide-bridge--watch
            (ignore-errors
              (file-notify-add-watch buffer-file-name '(change)
                                     (lambda (_event) (claude-ide-bridge--disk-changed buf))))))))

(defun claude-ide-bridge--unwatch-buffer ()
  "Stop watching the current buffer's file."
  (when claude-ide-bridge--watch
    (ignore-errors (file-notify-rm-watch claude-ide-bridge--watch))
    (setq claude-ide-bridge--watch nil)))

(defun claude-ide-bridge--disk-changed (buf)
  "Check BUF against its file soon (a write comes as several events)."
  (when (buffer-live-p buf)
    (with-current-buffer buf
      (unless claude-ide-bridge--check-timer
        (setq claude-ide-bridge--check-timer
              (run-with-timer 0.05 nil #'claude-ide-bridge--follow buf))))))

(defun claude-ide-bridge--follow (buf)
  "Revert BUF when its file is newer on disk and BUF is unmodified.
A modified buffer keeps its text; the user gets one message naming the file."
  (when (buffer-live-p buf)
    (with-current-buffer buf
      (setq claude-ide-bridge--check-timer nil)
      (let ((name (and buffer-file-name (file-name-nondirectory buffer-file-name))))
        (cond
         ((or (not name) (verify-visited-file-modtime buf)))
         ((not (file-exists-p buffer-file-name))
          (unless (eq claude-ide-bridge--warned 'deleted)
            (setq claude-ide-bridge--warned 'deleted)
            (claude-ide-bridge--msg "%s was deleted on disk; its buffer keeps the text" name)))
         ((not (buffer-modified-p))
          (setq claude-ide-bridge--warned nil)
          (revert-buffer t t t))
         ((not (equal claude-ide-bridge--warned (file-attribute-modification-time
                                                 (file-attributes buffer-file-name))))
          (setq claude-ide-bridge--warned (file-attribute-modification-time
                                           (file-attributes buffer-file-name)))
          (claude-ide-bridge--msg
           "%s changed on disk, but its buffer has unsaved changes: they are kept (M-x revert-buffer loads the file, C-x C-s overwrites it)"
           name)))))))

;;;; Mentions

(defun claude-ide-bridge--mention (path &optional first last)
  "Send PATH (lines FIRST to LAST, 0-based, inclusive) to Claude."
  (claude-ide-bridge--need-bridge)
  (jsonrpc-async-request
   claude-ide-bridge--conn :atMentioned
   (append (list :filePath (expand-file-name path))
           (and first (list :lineStart first :lineEnd last)))
   :success-fn
   (lambda (r)
     (claude-ide-bridge--msg "mentioned %s%s%s" (file-name-nondirectory path)
                             (if first (format ":%d-%d" (1+ first) (1+ last)) "")
                             (if (eq (plist-get r :held) t) " (held until Claude connects)" "")))
   :error-fn (lambda (e) (claude-ide-bridge--msg "%s" (plist-get e :message)))))

;;;###autoload
(defun claude-ide-bridge-send ()
  "Send the region's lines, else the file, to Claude (an @-mention).
In Dired, send the marked files (or the one at point)."
  (interactive)
  (cond
   ((derived-mode-p 'dired-mode)
    (dolist (f (dired-get-marked-files)) (claude-ide-bridge--mention f)))
   ((not buffer-file-name) (user-error "This buffer visits no file"))
   ((use-region-p)
    (let* ((b (region-beginning)) (e (region-end))
           (first (1- (line-number-at-pos b t)))
           (last (1- (line-number-at-pos e t))))
      ;; A region ending at a line's start does not take that line.
      (when (and (> last first) (save-excursion (goto-char e) (bolp)))
        (setq last (1- last)))
      (claude-ide-bridge--mention buffer-file-name first last)
      (deactivate-mark)))
   (t (claude-ide-bridge--mention buffer-file-name))))

;;;; Claude's permission questions

(defun claude-ide-bridge--clean (s &optional max)
  "S, the model's text, with control characters shown as \\xNN, cut at MAX.
MAX defaults to 4096 characters; a cut text ends in \" …\"."
  (let* ((s (if (stringp s) s (format "%s" (or s "")))) (max (or max 4096)) (cut (> (length s) max)))
    (concat (replace-regexp-in-string
             "[\0-\37\177\u0080-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]"
             (lambda (c) (format (if (< (aref c 0) 256) "\\x%02x" "\\u%04x") (aref c 0)))
             (if cut (substring s 0 max) s) t t)
            (if cut " …" ""))))

(defun claude-ide-bridge--question-text (q &optional max)
  "What question Q (askPermission's params) asks, escaped, its input cut at MAX."
  (let* ((in (plist-get q :input))
         (key (and (consp in) (seq-find (lambda (k) (stringp (plist-get in k))) '(:command :url :file_path)))))
    (format "Claude (session %s) asks to use %s: %s"
            (truncate-string-to-width (claude-ide-bridge--clean (plist-get q :session) 64) 8)
            (claude-ide-bridge--clean (plist-get q :tool) 200)
            (claude-ide-bridge--clean (cond ((stringp in) in)
                                            (key (format "%s: %s" (substring (symbol-name key) 1) (plist-get in key)))
                                            (t (or (ignore-errors (json-serialize in :false-object :json-false :null-object nil)) "")))
                                      max))))

(defun claude-ide-bridge--ask-permission (params)
  "Handle askPermission PARAMS: keep the question, say so, answer {}.
Asked only by `claude-ide-bridge-permissions': a key you were typing
for a buffer must never answer it."
  (unless claude-ide-bridge-permissions
    (jsonrpc-error :code -32000 :message "permission questions are off here"))
  (unless (numberp (plist-get params :id))
    (jsonrpc-error :code -32602 :message "askPermission needs a numeric id"))
  (setq claude-ide-bridge--questions (append claude-ide-bridge--questions (list params)))
  (force-mode-line-update t)
  (claude-ide-bridge--msg "%s (%s answers)" (claude-ide-bridge--question-text params 120)
                          (substitute-command-keys "\\[claude-ide-bridge-permissions]"))
  (make-hash-table))

(defun claude-ide-bridge--withdrawn (params)
  "Handle permissionWithdrawn PARAMS: drop the question, with a message."
  (let ((q (seq-find (lambda (q) (eql (plist-get q :id) (plist-get params :id))) claude-ide-bridge--questions)))
    (when q
      (setq claude-ide-bridge--questions (delq q claude-ide-bridge--questions))
      (force-mode-line-update t)
      (claude-ide-bridge--msg "Claude's question about %s was withdrawn: %s"
                              (claude-ide-bridge--clean (plist-get q :tool) 200)
                              (claude-ide-bridge--clean (plist-get params :reason) 200)))))

(defun claude-ide-bridge-permissions ()
  "Answer the oldest of Claude's pending permission questions.
It is shown in a window; keys: y allow once, a allow always (Claude's
suggestion, when it has one), n deny, r deny with a reason you type
\(Claude gets it), q later.  A question withdrawn meanwhile (answered
in Claude's terminal) gets no answer from here."
  (interactive)
  (let ((q (or (car claude-ide-bridge--questions) (user-error "No permission question of Claude is pending")))
        (sug (plist-get (car claude-ide-bridge--questions) :suggestions)) key reason)
    (with-current-buffer (get-buffer-create "*Claude permission*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (claude-ide-bridge--question-text q) "\n"))
      (setq buffer-read-only t)
      (save-window-excursion
        (display-buffer (current-buffer) '(display-buffer-at-bottom (window-height . fit-window-to-buffer)))
        (setq key (car (read-multiple-choice
                        (format "Claude asks to use %s (%d pending)" (claude-ide-bridge--clean (plist-get q :tool) 200)
                                (length claude-ide-bridge--questions))
                        `((?y "allow") ,@(and (vectorp sug) (> (length sug) 0) '((?a "always"))) (?n "deny")
                          (?r "reason" "deny with a reason") (?q "later")))))
        (when (eq key ?r) (setq reason (read-string "Reason (Claude gets it): ")))))
    (cond ((eq key ?q))
          ((not (memq q claude-ide-bridge--questions))
           (claude-ide-bridge--msg "that question was withdrawn; nothing sent"))
          (t (setq claude-ide-bridge--questions (delq q claude-ide-bridge--questions))
             (force-mode-line-update t)
             (jsonrpc-async-request
              claude-ide-bridge--conn :permissionDecided
              (append (list :id (plist-get q :id) :behavior (if (memq key '(?y ?a)) "allow" "deny"))
                      (and reason (list :message reason)) (and (eq key ?a) (list :always t)))
              :success-fn #'ignore
              :error-fn (lambda (e) (claude-ide-bridge--msg "not answered here: %s" (plist-get e :message))))))))

;;;; The bridge process

(defun claude-ide-bridge--installed-path ()
  "Where `claude-ide-bridge-install' puts the binary."
  (expand-file-name (if (eq system-type 'windows-nt) "claude-ide-bridge.exe" "claude-ide-bridge")
                    claude-ide-bridge-install-directory))

(defun claude-ide-bridge--checkout-root ()
  "This package's checkout root (with go.mod), or nil."
  (let ((root (expand-file-name "../../" claude-ide-bridge--source-dir)))
    (and (file-exists-p (expand-file-name "go.mod" root)) root)))

(defun claude-ide-bridge--outside (cmd)
  "CMD, its program from the variable `exec-path' outside the workspace.
For the bridge binary; claude's program the bridge finds (claudeCommand)."
  (let ((p (executable-find (car cmd))) (ws (cons (claude-ide-bridge--root) claude-ide-bridge--folders)))
    (if (and p (not (seq-some (lambda (r) (file-in-directory-p p r)) ws))) (cons p (cdr cmd))
      (user-error "%s: not found on `exec-path' outside the workspace" (car cmd)))))

(defun claude-ide-bridge-find-program ()
  "The bridge binary to run, or nil."
  (seq-find (lambda (f) (and f (file-executable-p f)))
            (list claude-ide-bridge-program
                  (claude-ide-bridge--installed-path)
                  (car (ignore-errors (claude-ide-bridge--outside '("claude-ide-bridge"))))
                  (let ((root (claude-ide-bridge--checkout-root))) (and root (expand-file-name "bin/claude-ide-bridge" root))))))

(defun claude-ide-bridge--root ()
  "The project root of the current buffer, else `default-directory'."
  (let ((pr (project-current nil)))
    (expand-file-name (if pr (project-root pr) default-directory))))

(defun claude-ide-bridge--handlers ()
  "The bridge's requests and their handlers."
  `((openFile . claude-ide-bridge--open-file)
    (showDiff . claude-ide-bridge--show-diff)
    (closeDiff . claude-ide-bridge--close-diff)
    (diffText . claude-ide-bridge--diff-text)
    (setBufferText . claude-ide-bridge--set-buffer-text)
    (getOpenEditors . claude-ide-bridge--open-editors)
    (getCurrentSelection . claude-ide-bridge--current-selection)
    (checkDocumentDirty . claude-ide-bridge--dirty)
    (saveDocument . claude-ide-bridge--save)
    (getDiagnostics . claude-ide-bridge--diagnostics)
    (askPermission . claude-ide-bridge--ask-permission)))

(defun claude-ide-bridge--dispatch (_conn method params)
  "Answer the bridge's request METHOD with PARAMS."
  (let ((fn (alist-get method (claude-ide-bridge--handlers))))
    (unless fn (jsonrpc-error :code -32601 :message (format "unknown method %s" method)))
    (condition-case err
        (funcall fn params)
      (jsonrpc-error (signal (car err) (cdr err)))
      (error (jsonrpc-error :code -32000 :message (error-message-string err))))))

(defun claude-ide-bridge--notified (_conn method params)
  "Handle the bridge's notification METHOD with PARAMS."
  (when (memq method '(clientConnected clientDisconnected))
    (setq claude-ide-bridge--agents (plist-get params :agents))
    (force-mode-line-update t)
    (claude-ide-bridge--msg "%s %s (%d connected)" (claude-ide-bridge--who (plist-get params :agent))
                            (if (eq method 'clientConnected) "connected" "disconnected") (plist-get params :clients)))
  (when (eq method 'permissionWithdrawn) (claude-ide-bridge--withdrawn params))
  (when (and (eq method 'diffsSkipped) (stringp (plist-get params :message))) ; edits without diffs
    (claude-ide-bridge--msg "%s" (plist-get params :message))))

(defun claude-ide-bridge--exited (conn)
  "The bridge of CONN ended."
  (when (eq conn claude-ide-bridge--conn)
    (unless claude-ide-bridge--stopping
      (claude-ide-bridge--msg "the bridge exited with status %s; see the buffer \"*claude-ide-bridge stderr*\""
                              (process-exit-status (jsonrpc--process conn))))
    (let ((lock (plist-get claude-ide-bridge--info :lockPath))) ; a killed bridge's names us: Claude trusts it
      (when (equal (emacs-pid) (ignore-errors (with-temp-buffer (insert-file-contents lock) (plist-get (json-parse-buffer :object-type 'plist) :pid))))
        (ignore-errors (delete-file lock))))
    (setq claude-ide-bridge--conn nil claude-ide-bridge--info nil claude-ide-bridge--agents nil
          claude-ide-bridge--questions nil)
    (maphash (lambda (_ d) (run-at-time 0 nil #'claude-ide-bridge--close-view d))
             claude-ide-bridge--diffs)))

(defun claude-ide-bridge--initialize-params ()
  "The params of initialize."
  (list :name (or claude-ide-bridge-ide-name (let ((d (car claude-ide-bridge--folders)))
                                               (format "Emacs (%s)" (if (equal d "/") d (file-name-nondirectory d)))))
        :pid (emacs-pid)
        :workspaceFolders (vconcat claude-ide-bridge--folders)
        :positionEncoding (symbol-name claude-ide-bridge-position-encoding)
        :trackSelection t
        :capabilities (list :openFile t :showDiff t :canCloseTabs t :getOpenEditors t
                            :getCurrentSelection t :checkDocumentDirty t :saveDocument t
                            :getDiagnostics t :executeCode :json-false :setBufferText t
                            :lspRequest :json-false :diffText t
                            :askPermission (if (consp claude-ide-bridge-permissions)
                                               (vconcat claude-ide-bridge-permissions)
                                             (or claude-ide-bridge-permissions :json-false)))))

(defun claude-ide-bridge--start ()
  "Start the bridge for the current project."
  (let ((bin (claude-ide-bridge-find-program)))
    (unless bin
      (user-error "No claude-ide-bridge binary: M-x claude-ide-bridge-install, or set `claude-ide-bridge-program'"))
    (setq claude-ide-bridge--folders (list (directory-file-name (claude-ide-bridge--root)))
          claude-ide-bridge--stopping nil claude-ide-bridge--last-selection nil
          claude-ide-bridge--paused nil)
    (let* ((name "claude-ide-bridge")
           (size (if claude-ide-bridge-log-events nil 0))
           (conn (apply
                  #'make-instance 'jsonrpc-process-connection
                  :name name
                  :request-dispatcher #'claude-ide-bridge--dispatch
                  :notification-dispatcher #'claude-ide-bridge--notified
                  :on-shutdown #'claude-ide-bridge--exited
                  :process (lambda ()
                             (make-process
                              :name name :command (append (list bin "serve" "--stdio")
                                                          claude-ide-bridge-serve-args)
                              :connection-type 'pipe :coding 'utf-8-emacs-unix :noquery t
                              :stderr (get-buffer-create (format "*%s stderr*" name))))
                  ;; jsonrpc 1.0.24 renamed the option (Emacs 30 warns about the old one).
                  (if (slot-exists-p 'jsonrpc-connection '-events-buffer-config)
                      (list :events-buffer-config (list :size size))
                    (list :events-buffer-scrollback-size size)))))
      (setq claude-ide-bridge--conn conn)
      (jsonrpc-async-request
       conn :initialize (claude-ide-bridge--initialize-params)
       :success-fn (lambda (r)
                     (when (eq conn claude-ide-bridge--conn)
                       (setq claude-ide-bridge--info r)
                       (claude-ide-bridge--msg "listening on port %s for %s"
                                               (plist-get r :port)
                                               (abbreviate-file-name (car claude-ide-bridge--folders)))
                       (claude-ide-bridge--post-command)))
       :error-fn (lambda (e) (claude-ide-bridge--msg "initialize failed: %s" (plist-get e :message)))))))

(defun claude-ide-bridge--stop (&optional leaving)
  "Stop the bridge: it settles pending diffs and exits, lock file gone.
With LEAVING (Emacs quits) and a Claude outside Emacs connected, it stays
for that Claude (the next Emacs here attaches): it is let go, not killed."
  (let* ((conn claude-ide-bridge--conn) (proc (and conn (jsonrpc--process conn)))
         (stay (and leaving ; more clients than agents in Emacs's terminals, which end with it
                    (> (cl-loop for (_ n) on claude-ide-bridge--agents by #'cddr sum n) (seq-count (lambda (c) (get-buffer-process (cdr c))) claude-ide-bridge--terminals))))
         (log (get-buffer "*claude-ide-bridge stderr*")) (from (if log (with-current-buffer log (point-max)) 1)))
    (setq claude-ide-bridge--stopping t)
    (maphash (lambda (_ d) (claude-ide-bridge--close-view d)) claude-ide-bridge--diffs)
    (when (and proc (process-live-p proc))
      (when (and (not stay) (claude-ide-bridge--ready-p))
        (ignore-errors (jsonrpc-notify conn :shutdown (make-hash-table))))
      ;; EOF: it exits (<1 s), or stays, logs so and ignores the SIGHUP of Emacs's exit.
      (ignore-errors (process-send-eof proc))
      (with-timeout (2 (unless stay (delete-process proc)))
        (while (and (process-live-p proc)
                    (not (and stay (buffer-live-p log) (string-match-p "staying for Claude"
                                                                  (with-current-buffer log (buffer-substring from (point-max)))))))
          (accept-process-output nil 0.05))))
    (setq claude-ide-bridge--conn nil claude-ide-bridge--info nil claude-ide-bridge--questions nil)))

(defun claude-ide-bridge--leave () "Let the bridge know Emacs quits." (claude-ide-bridge--stop t))

(defun claude-ide-bridge--need-bridge ()
  "Signal a user error unless the bridge is ready."
  (unless (claude-ide-bridge--ready-p)
    (user-error "The bridge is not running: M-x claude-ide-bridge-mode")))

(defun claude-ide-bridge--add-folder (dir)
  "Make DIR one of the bridge's workspace folders."
  (let ((dir (directory-file-name (expand-file-name dir))))
    (unless (member dir claude-ide-bridge--folders)
      (setq claude-ide-bridge--folders (append claude-ide-bridge--folders (list dir)))
      (jsonrpc-notify claude-ide-bridge--conn :workspaceFoldersChanged
                      (list :folders (vconcat claude-ide-bridge--folders))))))

(defun claude-ide-bridge--kill-buffer ()
  "Clean up when a buffer is killed; a file's is told to the bridge."
  (claude-ide-bridge--unwatch-buffer)
  (when (and buffer-file-name (claude-ide-bridge--ready-p))
    (jsonrpc-notify claude-ide-bridge--conn :fileClosed
                    (list :filePath (expand-file-name buffer-file-name)))))

;;;###autoload
(define-minor-mode claude-ide-bridge-mode
  "Connect Emacs to the Claude Code CLI through claude-ide-bridge.
Runs \"claude-ide-bridge serve --stdio\" for the current project (its
project.el root, else `default-directory'); off stops it.  It ends with
Emacs, or stays for a Claude outside Emacs (the next Emacs attaches).  Claude
then sees your selection and open files, shows its edits as diffs here
and reads flymake or flycheck diagnostics."
  :global t
  :group 'claude-ide-bridge
  :lighter (:eval (if (claude-ide-bridge--ready-p)
                      (format " Claude[%d%s%s%s]" (or (plist-get claude-ide-bridge--agents :claude) 0)
                              (cl-loop for (k n) on claude-ide-bridge--agents by #'cddr unless (eq k :claude)
                                       concat (apply #'concat (make-list n (concat "+" (claude-ide-bridge--who (substring (symbol-name k) 1))))))
                              (if claude-ide-bridge--paused " paused" "")
                              (if claude-ide-bridge--questions (format " ?%d" (length claude-ide-bridge--questions)) ""))
                    " Claude[-]"))
  (if claude-ide-bridge-mode
      (condition-case err
          (progn
            (claude-ide-bridge--start)
            (add-hook 'post-command-hook #'claude-ide-bridge--post-command)
            (add-hook 'find-file-hook #'claude-ide-bridge--watch-buffer)
            (add-hook 'kill-buffer-hook #'claude-ide-bridge--kill-buffer)
            (add-hook 'kill-emacs-hook #'claude-ide-bridge--leave)
            (dolist (b (claude-ide-bridge--file-buffers))
              (with-current-buffer b (claude-ide-bridge--watch-buffer))))
        (error (setq claude-ide-bridge-mode nil)
               (signal (car err) (cdr err))))
    (remove-hook 'post-command-hook #'claude-ide-bridge--post-command)
    (remove-hook 'find-file-hook #'claude-ide-bridge--watch-buffer)
    (remove-hook 'kill-buffer-hook #'claude-ide-bridge--kill-buffer)
    (remove-hook 'kill-emacs-hook #'claude-ide-bridge--leave)
    (dolist (b (buffer-list)) (with-current-buffer b (claude-ide-bridge--unwatch-buffer)))
    (claude-ide-bridge--stop)))

(defun claude-ide-bridge-toggle-sharing ()
  "Pause or resume sharing your selection, open files and diagnostics.
Mentions you send still go."
  (interactive)
  (claude-ide-bridge--need-bridge)
  (let ((r (jsonrpc-request claude-ide-bridge--conn :setSharing
                            (list :paused (if claude-ide-bridge--paused :json-false t)))))
    (setq claude-ide-bridge--paused (eq (plist-get r :paused) t)
          claude-ide-bridge--last-selection nil)
    (claude-ide-bridge--msg "sharing %s" (if claude-ide-bridge--paused "paused" "resumed"))))

(defun claude-ide-bridge-status ()
  "Show the bridge's port, clients (every agent) and diffs."
  (interactive)
  (claude-ide-bridge--need-bridge)
  (let ((r (jsonrpc-request claude-ide-bridge--conn :status (make-hash-table))))
    (claude-ide-bridge--msg "port %s, %s, %d diff(s), folders %s"
                            (plist-get r :port) (plist-get r :clientsLine)
                            (length (plist-get r :diffs))
                            (mapconcat #'abbreviate-file-name claude-ide-bridge--folders ", "))))

;;;; Agents in a terminal

(defun claude-ide-bridge--who (agent)
  "The name to show for AGENT, a bridge's string: known names only."
  (or (cdr (assoc (or agent "claude") '(("claude" . "Claude") ("gemini" . "Gemini") ("qwen" . "Qwen"))))
      "An agent"))

(defvar claude-ide-bridge--mode-told nil "Whether the user was told edits skip diffs.")

(defun claude-ide-bridge--claude-command (&optional args agent)
  "How to start AGENT (default claude) with ARGS, as the bridge composes it.
A plist :argv :env :display :permissionMode :why :notice (claudeCommand).
The notice (edits skip diffs) is shown once; an error answer is a
`user-error' with the bridge's text, escaped."
  (let* ((mode claude-ide-bridge-permission-mode)
         (r (condition-case err
                (jsonrpc-request claude-ide-bridge--conn :claudeCommand
                                 (if (member agent '(nil "claude"))
                                     (list :command (vector claude-ide-bridge-claude-program)
                                           :args (vconcat claude-ide-bridge-claude-args args)
                                           :permissionMode (cond ((stringp mode) mode) ((eq mode 'none) :json-false))
                                           :modelTools (if claude-ide-bridge-model-tools t :json-false))
                                   (list :agent agent :args (vconcat args)))
                                 :timeout 5)
              (jsonrpc-error (user-error "%s" (claude-ide-bridge--clean (alist-get 'jsonrpc-error-message (cddr err))))))))
    (when (and (stringp (plist-get r :notice)) (not claude-ide-bridge--mode-told))
      (setq claude-ide-bridge--mode-told t)
      (claude-ide-bridge--msg "%s" (plist-get r :notice)))
    r))

(defun claude-ide-bridge-claude-environment (&optional env)
  "`process-environment' with ENV (a plist; default: the bridge's) first."
  (append (cl-loop for (k v) on (or env (plist-get claude-ide-bridge--info :env)) by #'cddr
                   collect (format "%s=%s" (substring (symbol-name k) 1) v))
          process-environment))

;;;###autoload
(defun claude-ide-bridge-agent (agent &optional args)
  "Run AGENT (claude, gemini or qwen) in a terminal wired to this Emacs.
Shows AGENT's terminal instead when it runs.  With a prefix argument,
read extra ARGS first.  The project of the current buffer becomes a
workspace folder.  The bridge composes the command line (claudeCommand)."
  (interactive (let ((a (completing-read "Agent: " '("claude" "gemini" "qwen") nil t)))
                 (list a (and current-prefix-arg
                              (split-string-and-unquote (read-string (format "%s arguments: " a)))))))
  (unless claude-ide-bridge-mode (claude-ide-bridge-mode 1))
  (with-timeout (10 (user-error "The bridge did not start; see the buffer \" *claude-ide-bridge stderr*\""))
    (while (not (claude-ide-bridge--ready-p)) (accept-process-output nil 0.05)))
  (let ((old (cdr (assoc agent claude-ide-bridge--terminals))))
    (if (and (buffer-live-p old) (get-buffer-process old))
        (pop-to-buffer old claude-ide-bridge-claude-display-action)
      (let* ((default-directory (file-name-as-directory (claude-ide-bridge--root)))
             (c (claude-ide-bridge--claude-command args agent))
             (cmd (append (plist-get c :argv) nil)) ; its program: the bridge's find, never the workspace's
             (process-environment (claude-ide-bridge-claude-environment (plist-get c :env)))
             (name (format "*%s*" agent))
             (buf (pcase (if (not (eq claude-ide-bridge-terminal 'auto)) claude-ide-bridge-terminal
                           (cond ((require 'eat nil t) 'eat) ((require 'vterm nil t) 'vterm)))
                    ('eat (apply #'eat-make agent (car cmd) nil (cdr cmd)))
                    ('vterm (let ((vterm-shell (mapconcat #'shell-quote-argument cmd " "))
                                  (vterm-buffer-name name))
                              (save-window-excursion (vterm name))))
                    (_ (with-current-buffer (apply #'make-term agent (car cmd) nil (cdr cmd))
                         (term-char-mode)
                         (current-buffer))))))
        (claude-ide-bridge--add-folder default-directory)
        (setf (alist-get agent claude-ide-bridge--terminals nil nil #'equal) buf)
        (pop-to-buffer buf claude-ide-bridge-claude-display-action)))))

;;;###autoload
(defun claude-ide-bridge-claude (&optional args)
  "Run claude with ARGS as `claude-ide-bridge-agent' does, or show it.
With a prefix argument, read extra ARGS for claude first."
  (interactive (list (and current-prefix-arg (split-string-and-unquote (read-string "claude arguments: ")))))
  (claude-ide-bridge-agent "claude" args))

;;;; Installing the bridge

(defun claude-ide-bridge--platform ()
  "This machine as Go names it: (OS . ARCH), or nil."
  (let ((os (pcase system-type ('gnu/linux "linux") ('darwin "darwin") ('windows-nt "windows")))
        (arch (let ((m (car (split-string system-configuration "-"))))
                (cond ((member m '("x86_64" "amd64")) "amd64")
                      ((member m '("aarch64" "arm64")) "arm64")))))
    (and os arch (cons os arch))))

(defun claude-ide-bridge--expected-sum (sums name)
  "The SHA-256 that the SHA256SUMS text SUMS gives for NAME, or nil."
  (cl-loop for line in (split-string sums "[\r\n]+" t)
           when (string-match "\\`\\([0-9a-fA-F]\\{64\\}\\)[ \t]+\\*?\\(.+\\)\\'" line)
           when (equal (match-string 2 line) name)
           return (downcase (match-string 1 line))))

(defun claude-ide-bridge--file-sha256 (file)
  "The SHA-256 of FILE's bytes."
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally file)
    (secure-hash 'sha256 (current-buffer))))

(defun claude-ide-bridge--run (program &rest args)
  "Run PROGRAM with ARGS; return its output, or signal an error with it."
  (with-temp-buffer
    (let ((status (apply #'call-process program nil t nil args)))
      (unless (eql status 0)
        (error "%s failed: %s" program (string-trim (buffer-string))))
      (buffer-string))))

(defun claude-ide-bridge--put-in-place (bin)
  "Check that BIN is a runnable regular file and move it into place."
  (when (or (file-symlink-p bin) (not (file-regular-p bin)))
    (error "The archive's claude-ide-bridge is not a regular file; nothing installed"))
  (set-file-modes bin #o755)
  (unless (string-match-p "claude-ide-bridge" (claude-ide-bridge--run bin "version"))
    (error "The new bridge does not run; nothing installed"))
  (make-directory claude-ide-bridge-install-directory t)
  (rename-file bin (claude-ide-bridge--installed-path) t)
  (claude-ide-bridge--installed-path))

(defun claude-ide-bridge--from-release (tmp)
  "Download, check and install the release into TMP then into place."
  (let* ((plat (or (claude-ide-bridge--platform)
                   (signal 'file-missing (list "no release for" system-configuration))))
         (name (format "claude-ide-bridge_%s_%s_%s%s" claude-ide-bridge-version (car plat) (cdr plat)
                       (if (equal (car plat) "windows") ".zip" ".tar.gz")))
         (url (format "%s/v%s/" (string-trim-right claude-ide-bridge-install-base-url "/+")
                      claude-ide-bridge-version))
         (sums (expand-file-name "SHA256SUMS" tmp))
         (archive (expand-file-name name tmp)))
    (condition-case err
        (progn (url-copy-file (concat url "SHA256SUMS") sums t)
               (url-copy-file (concat url name) archive t))
      (error (signal 'file-missing (list (format "cannot download %s%s: %s" url name
                                                 (error-message-string err))))))
    (let ((want (claude-ide-bridge--expected-sum
                 (with-temp-buffer (insert-file-contents sums) (buffer-string)) name))
          (got (claude-ide-bridge--file-sha256 archive)))
      (unless want (error "SHA256SUMS has no line for %s; nothing installed" name))
      (unless (equal want got)
        (error "Checksum mismatch for %s: SHA256SUMS says %s, the download is %s; nothing installed"
               name want got))
      (let ((dir (expand-file-name "unpack" tmp)))
        (make-directory dir)
        (claude-ide-bridge--run "tar" "-xf" archive "-C" dir)
        (claude-ide-bridge--put-in-place (expand-file-name "claude-ide-bridge" dir))))))

(defun claude-ide-bridge--from-source (tmp)
  "Build the bridge from this package's checkout with Go into TMP, then into place."
  (let ((root (or (claude-ide-bridge--checkout-root) (error "No Go sources beside this package")))
        (bin (expand-file-name "claude-ide-bridge" tmp)))
    (let ((default-directory root)
          (process-environment (cons "CGO_ENABLED=0" process-environment)))
      (claude-ide-bridge--run "go" "build" "-trimpath" "-ldflags"
                              (concat "-X main.version=" claude-ide-bridge-version)
                              "-o" bin "./cmd/claude-ide-bridge"))
    (claude-ide-bridge--put-in-place bin)))

;;;###autoload
(defun claude-ide-bridge-install (&optional build)
  "Install the bridge binary into `claude-ide-bridge-install-directory'.
Downloads this version's release archive and SHA256SUMS, and installs
only when the archive's SHA-256 matches.  When no release can be
downloaded and Go is installed, builds it from this checkout.  With
BUILD (a prefix argument), builds from the checkout directly."
  (interactive "P")
  (let ((tmp (make-temp-file "claude-ide-bridge-install" t)))
    (unwind-protect
        (let ((path (if build
                        (claude-ide-bridge--from-source tmp)
                      (condition-case err
                          (claude-ide-bridge--from-release tmp)
                        (file-missing
                         (unless (and (executable-find "go") (claude-ide-bridge--checkout-root))
                           (signal (car err) (cdr err)))
                         (claude-ide-bridge--msg "no release reachable (%s); building with Go"
                                                 (error-message-string err))
                         (claude-ide-bridge--from-source tmp))))))
          (claude-ide-bridge--msg "installed %s" path)
          path)
      (delete-directory tmp t))))

;;;; Keys

(defvar claude-ide-bridge-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map "c" #'claude-ide-bridge-claude)
    (define-key map "g" #'claude-ide-bridge-agent)
    (define-key map "s" #'claude-ide-bridge-send)
    (define-key map "a" #'claude-ide-bridge-accept)
    (define-key map "k" #'claude-ide-bridge-reject)
    (define-key map "d" #'claude-ide-bridge-close-all-diffs)
    (define-key map "i" #'claude-ide-bridge-status)
    (define-key map "p" #'claude-ide-bridge-toggle-sharing)
    (define-key map "m" #'claude-ide-bridge-mode)
    (define-key map "q" #'claude-ide-bridge-permissions)
    map)
  "Commands of claude-ide-bridge, for a prefix key of your choice.")
(fset 'claude-ide-bridge-command-map claude-ide-bridge-command-map)

(provide 'claude-ide-bridge)
;;; claude-ide-bridge.el ends here
