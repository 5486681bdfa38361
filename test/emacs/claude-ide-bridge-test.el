;;; claude-ide-bridge-test.el --- ERT tests of claude-ide-bridge.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by test/emacs (ert_test.go) in `emacs --batch'; CLAUDE_IDE_BRIDGE_BIN is the bridge
;; built for the run.

;;; Code:

(require 'ert)
(require 'claude-ide-bridge)

(defmacro cibt-with-buffer (text &rest body)
  "Run BODY in a file buffer holding TEXT, point at its start."
  (declare (indent 1))
  `(let ((file (make-temp-file "cibt" nil ".txt")))
     (unwind-protect
         (with-current-buffer (let ((coding-system-for-read 'utf-8-unix)
                                    (coding-system-for-write 'utf-8-unix))
                                (write-region ,text nil file nil 'silent)
                                (find-file-noselect file))
           (set-window-buffer (selected-window) (current-buffer))
           (unwind-protect (progn (goto-char (point-min)) ,@body)
             (set-buffer-modified-p nil)
             (kill-buffer)))
       (delete-file file))))

(ert-deftest cibt-units ()
  "Characters are UTF-8 bytes or UTF-16 code units; a raw byte is one byte."
  (should (= (claude-ide-bridge--units "日本") 6))
  (should (= (claude-ide-bridge--units "a😀") 5))
  (let ((claude-ide-bridge-position-encoding 'utf-16))
    (should (= (claude-ide-bridge--units "日本") 2))
    (should (= (claude-ide-bridge--units "a😀") 3)))
  (cibt-with-buffer "\377a"
    (should (= (claude-ide-bridge--units (buffer-substring 1 2)) 1))
    (should (equal (claude-ide-bridge--json-text (buffer-string)) "\ufffda"))))

(ert-deftest cibt-positions-round-trip ()
  "A protocol position and a buffer position convert both ways, clamped."
  (cibt-with-buffer "日本語\nab\n"
    (should (equal (claude-ide-bridge--pos 3) '(:line 0 :character 6)))
    (should (= (claude-ide-bridge--point '(:line 0 :character 6)) 3))
    (should (= (claude-ide-bridge--point '(:line 1 :character 99)) 7))
    (should (= (claude-ide-bridge--point '(:line 9 :character 0)) (point-max)))
    (let ((claude-ide-bridge-position-encoding 'utf-16))
      (should (equal (claude-ide-bridge--pos 3) '(:line 0 :character 2)))
      (should (= (claude-ide-bridge--point '(:line 0 :character 2)) 3)))))

(ert-deftest cibt-selection-narrowed ()
  "Lines count from the buffer's start even when it is narrowed."
  (cibt-with-buffer "a\nbc\nd\n"
    (narrow-to-region 3 6)
    (goto-char 4)
    (let ((s (claude-ide-bridge-selection)))
      (should (equal (plist-get (plist-get s :selection) :start) '(:line 1 :character 1)))
      (should (equal (plist-get s :text) "")))))

(ert-deftest cibt-selection-not-a-file ()
  "Buffers that visit no file (terminals, proposals) have no selection."
  (with-temp-buffer
    (set-window-buffer (selected-window) (current-buffer))
    (should-not (claude-ide-bridge-selection))))

(ert-deftest cibt-environment ()
  "The bridge's variables come first in claude's environment."
  (let ((claude-ide-bridge--info '(:env (:CLAUDE_CODE_SSE_PORT "123" :ENABLE_IDE_INTEGRATION "true"))))
    (should (equal (seq-take (claude-ide-bridge-claude-environment) 2)
                   '("CLAUDE_CODE_SSE_PORT=123" "ENABLE_IDE_INTEGRATION=true")))))

(ert-deftest cibt-language-id ()
  "Language ids come from the major mode."
  (with-temp-buffer
    (emacs-lisp-mode)
    (should (equal (claude-ide-bridge--language-id) "emacs-lisp"))))

(ert-deftest cibt-expected-sum ()
  "SHA256SUMS lines are read as sha256sum writes them, binary marker too."
  (let ((a (make-string 64 ?a)) (b (make-string 64 ?B)))
    (should (equal (claude-ide-bridge--expected-sum (format "%s  x.tar.gz\n%s *y.tar.gz\n" a b) "y.tar.gz")
                   (downcase b)))
    (should-not (claude-ide-bridge--expected-sum (format "%s  x.tar.gz\n" a) "x.zip"))))

(defun cibt-release (dir version script &optional sums-for link)
  "Make a release of VERSION in DIR/vVERSION whose binary is SCRIPT.
SUMS-FOR: the file the SHA256SUMS line describes (default the archive's
own bytes); LINK: make the binary a symbolic link to SCRIPT."
  (let* ((plat (claude-ide-bridge--platform))
         (name (format "claude-ide-bridge_%s_%s_%s.tar.gz" version (car plat) (cdr plat)))
         (rel (expand-file-name (concat "v" version) dir))
         (stage (expand-file-name "stage" dir)))
    (make-directory rel t)
    (make-directory stage t)
    (with-temp-file (expand-file-name "real" stage) (insert script))
    (set-file-modes (expand-file-name "real" stage) #o755)
    (if link
        (make-symbolic-link "real" (expand-file-name "claude-ide-bridge" stage))
      (copy-file (expand-file-name "real" stage) (expand-file-name "claude-ide-bridge" stage)))
    (call-process "tar" nil nil nil "-czf" (expand-file-name name rel) "-C" stage "claude-ide-bridge")
    (with-temp-file (expand-file-name "SHA256SUMS" rel)
      (insert (claude-ide-bridge--file-sha256 (or sums-for (expand-file-name name rel))) "  " name "\n"))
    name))

(defmacro cibt-with-install (&rest body)
  "Run BODY with `dir' a release directory; install into a temporary one."
  `(let* ((dir (make-temp-file "cibt-rel" t))
          (claude-ide-bridge-install-directory (file-name-as-directory (expand-file-name "bin" dir)))
          (claude-ide-bridge-install-base-url (concat "file://" dir)))
     (unwind-protect (progn ,@body) (delete-directory dir t))))

(defconst cibt-script (format "#!/bin/sh\necho claude-ide-bridge %s\n" claude-ide-bridge-version))

(ert-deftest cibt-install-checks-sha256 ()
  "Install a release when its SHA-256 matches, nothing when it does not."
  (cibt-with-install
   (cibt-release dir claude-ide-bridge-version cibt-script)
   (should (equal (claude-ide-bridge-install) (claude-ide-bridge--installed-path)))
   (should (string-match-p (regexp-quote claude-ide-bridge-version)
                         (claude-ide-bridge--run (claude-ide-bridge--installed-path) "version"))))
  (cibt-with-install
   (let ((other (make-temp-file "cibt-other")))
     (cibt-release dir claude-ide-bridge-version cibt-script other)
     (let ((err (should-error (claude-ide-bridge-install))))
       (should (string-match-p "Checksum mismatch.*nothing installed" (error-message-string err))))
     (should-not (file-exists-p (claude-ide-bridge--installed-path)))
     (delete-file other))))

(ert-deftest cibt-install-falls-back-to-go ()
  "No reachable release: build from the checkout; a bad checksum never builds."
  (let (built)
    (cl-letf (((symbol-function 'claude-ide-bridge--from-source)
               (lambda (_tmp) (setq built t) "/built/claude-ide-bridge"))
              ((symbol-function 'executable-find) (lambda (p &rest _) (and (equal p "go") "/usr/bin/go")))
              ((symbol-function 'claude-ide-bridge--checkout-root) (lambda () "/src/")))
      (cibt-with-install
       (should (equal (claude-ide-bridge-install) "/built/claude-ide-bridge"))
       (should built))
      (setq built nil)
      (cibt-with-install
       (let ((other (make-temp-file "cibt-other")))
         (cibt-release dir claude-ide-bridge-version cibt-script other)
         (should-error (claude-ide-bridge-install))
         (should-not built)
         (delete-file other))))))

(ert-deftest cibt-install-refuses-symlink ()
  "An archive whose binary is a symbolic link installs nothing."
  (cibt-with-install
   (cibt-release dir claude-ide-bridge-version cibt-script nil t)
   (should-error (claude-ide-bridge-install))
   (should-not (file-exists-p (claude-ide-bridge--installed-path)))))

(defmacro cibt-with-bridge (&rest body)
  "Run BODY with the mode on for a temporary workspace `ws', then turn it off.
`cibt-claude' is a claude last on the bridge's PATH (the bridge looks it up)."
  (declare (indent 0))
  `(let* ((cfg (make-temp-file "cibt-cfg" t))
          (ws (file-name-as-directory (make-temp-file "cibt-ws" t)))
          (cibt-claude (expand-file-name "claude" cfg))
          (process-environment (cons (concat "CLAUDE_CONFIG_DIR=" cfg)
                                     (cons (concat "PATH=" (getenv "PATH") path-separator cfg) process-environment)))
          (claude-ide-bridge-program (getenv "CLAUDE_IDE_BRIDGE_BIN"))
          (default-directory ws))
     (write-region "#!/bin/sh\n" nil cibt-claude nil 'silent)
     (set-file-modes cibt-claude #o755)
     (unwind-protect
         (progn
           (claude-ide-bridge-mode 1)
           (with-timeout (10 (ert-fail "no answer to initialize"))
             (while (not (claude-ide-bridge--ready-p)) (accept-process-output nil 0.05)))
           ,@body)
       (claude-ide-bridge-mode -1)
       (delete-directory cfg t)
       (delete-directory ws t))))

(defun cibt-claude-command (&optional args)
  "The command line of claude with ARGS, as the bridge composes it."
  (append (plist-get (claude-ide-bridge--claude-command args) :argv) nil))

(ert-deftest cibt-agent-command ()
  "An agent's command line is the bridge's: its program, the args, its port.
An error answer is a `user-error' with the bridge's text, its control
characters escaped, and starts nothing (issue 38 item 4)."
  (cibt-with-bridge
    (let* ((gemini (expand-file-name "gemini" (file-name-directory cibt-claude)))
           (odd (expand-file-name "e\e]0;x\a" ws)))
      (copy-file cibt-claude gemini)
      (let ((c (claude-ide-bridge--claude-command '("--x") "gemini")))
        (should (equal (plist-get c :argv) (vector gemini "--x")))
        (should (string-match-p "\\`[0-9]+\\'" (plist-get (plist-get c :env) :GEMINI_CLI_IDE_SERVER_PORT))))
      ;; gemini on PATH is a link to a program in the workspace, in a folder named with
      ;; control characters: the bridge refuses it, naming the folder.
      (make-directory odd)
      (rename-file gemini (file-name-as-directory odd))
      (make-symbolic-link (expand-file-name "gemini" odd) gemini)
      (let ((msg (cadr (should-error (claude-ide-bridge-agent "gemini") :type 'user-error))))
        (should (string-match-p "/e\\\\x1b]0;x\\\\x07/gemini is inside the workspace" msg))
        (should-not (string-match-p "[\e\a]" msg)))
      (should-not claude-ide-bridge--terminals))))

(ert-deftest cibt-bridge-framing ()
  "Check that the bridge accepts jsonrpc.el's Content-Length framing.
initialize and status answer; turning the mode off removes the lock file."
  (cibt-with-bridge
    (let ((lock (plist-get claude-ide-bridge--info :lockPath)))
      (should (file-exists-p lock))
      (should (equal (plist-get (jsonrpc-request claude-ide-bridge--conn :status (make-hash-table)) :clients) 0))
      (claude-ide-bridge-mode -1)
      (should-not (file-exists-p lock)))))

(ert-deftest cibt-permission-mode ()
  "Claude gets the bridge's permission flag, as the Neovim plugin's claude does.
--permission-mode default unless the arguments or the Claude settings
choose a mode; the option overrides; `none' adds nothing."
  (cibt-with-bridge
    (let ((mcp (list "--mcp-config" (plist-get claude-ide-bridge--info :mcpConfig)))
          ;; The bridge's hooks for the CLI (its state, each turn's end).
          (settings (list "--settings" (concat (file-name-sans-extension
                                                (plist-get claude-ide-bridge--info :lockPath))
                                               ".settings.json"))))
      (should (equal (cibt-claude-command)
                     `(,cibt-claude "--permission-mode" "default" ,@settings ,@mcp)))
      (should (equal (cibt-claude-command '("--permission-mode" "plan"))
                     `(,cibt-claude ,@settings ,@mcp "--permission-mode" "plan")))
      (let ((claude-ide-bridge-permission-mode "acceptEdits"))
        (should (equal (cibt-claude-command '("-c"))
                       `(,cibt-claude "--permission-mode" "acceptEdits" ,@settings ,@mcp "-c"))))
      (let ((claude-ide-bridge-permission-mode 'none) (claude-ide-bridge-model-tools nil))
        (should (equal (cibt-claude-command '("-c")) (list cibt-claude "-c"))))
      ;; The project's Claude settings choose a mode that writes without a diff: no flag, and
      ;; the user is told.
      (make-directory (expand-file-name ".claude" ws))
      (with-temp-file (expand-file-name ".claude/settings.json" ws)
        (insert "{\"permissions\": {\"defaultMode\": \"acceptEdits\"}}"))
      (let ((claude-ide-bridge--mode-told nil) told)
        (cl-letf (((symbol-function 'claude-ide-bridge--msg)
                   (lambda (&rest args) (push (apply #'format args) told))))
          (should (equal (cibt-claude-command) `(,cibt-claude ,@settings ,@mcp))))
        (should (string-match-p "permission mode acceptEdits (set by .*settings.json): Claude writes its edits without showing them as diffs" (car told)))))))

(ert-deftest cibt-programs-not-from-workspace ()
  "The bridge and claude are never taken from the workspace (issue 35).
A program found first in the workspace on the variable `exec-path'
\(direnv's PATH_add bin) or through a relative entry is refused.
claude is the one the bridge finds on its PATH outside the workspace
folders, or an error when only the workspace has one."
  (let* ((ws (file-truename (make-temp-file "cibt-ws" t)))
         (outside (file-truename (make-temp-file "cibt-out" t)))
         (bin (expand-file-name "bin" ws))
         (default-directory (file-name-as-directory ws))
         (claude-ide-bridge--folders (list ws)))
    (unwind-protect
        (progn
          (make-directory bin)
          (dolist (d (list bin outside ws))
            (dolist (name '("claude" "claude-ide-bridge"))
              (let ((f (expand-file-name name d)))
                (write-region "#!/bin/sh\n" nil f nil 'silent)
                (set-file-modes f #o755))))
          (dolist (path (list (list bin outside) (list "." outside) (list "" outside)))
            (let ((exec-path path))
              (should-not (equal (claude-ide-bridge-find-program) (expand-file-name "claude-ide-bridge" bin)))
              (should-error (claude-ide-bridge--outside '("claude" "-c")) :type 'user-error)))
          (let ((exec-path (list outside bin)))
            (should (equal (claude-ide-bridge--outside '("claude" "-c"))
                           (list (expand-file-name "claude" outside) "-c"))))
          ;; claude: the bridge's PATH has the workspace's bin first, then ".",
          ;; which is the bridge's folder `ws' (given a claude), then outside.
          (let ((process-environment (cons (concat "PATH=" bin path-separator "." path-separator outside)
                                           process-environment)))
            (cibt-with-bridge
              (claude-ide-bridge--add-folder (expand-file-name ".." bin))
              (copy-file (expand-file-name "claude" outside) ws)
              (set-file-modes (expand-file-name "claude" ws) #o755)
              (jsonrpc-request claude-ide-bridge--conn :status (make-hash-table))
              (should (equal (car (cibt-claude-command)) (expand-file-name "claude" outside))))))
      (delete-directory ws t)
      (delete-directory outside t))))

(ert-deftest cibt-toggle-sharing ()
  "Pausing sharing reaches the bridge (its status says so), and resuming too."
  (cibt-with-bridge
    (let ((sharing (lambda () (plist-get (plist-get (jsonrpc-request claude-ide-bridge--conn :status
                                                                     (make-hash-table))
                                                    :sharing)
                                         :paused))))
      (claude-ide-bridge-toggle-sharing)
      (should claude-ide-bridge--paused)
      (should (eq (funcall sharing) t))
      (claude-ide-bridge-toggle-sharing)
      (should-not claude-ide-bridge--paused)
      (should (eq (funcall sharing) :json-false)))))

(defun cibt-decisions (edit decide)
  "The params of the decisions DECIDE sends after EDIT, in proposal 17's buffer."
  (let* (sent
         (buf (generate-new-buffer "proposal"))
         (d (claude-ide-bridge--diff-new :tab "T" :path "/p/a.txt" :number 17
                                         :proposal buf :state 'pending)))
    (unwind-protect
        (with-current-buffer buf
          (insert "new\n")
          (setq claude-ide-bridge--diff d)
          (setf (claude-ide-bridge--diff-tick d) (buffer-chars-modified-tick))
          (funcall edit)
          (cl-letf (((symbol-function 'claude-ide-bridge--ready-p) #'always)
                    ((symbol-function 'claude-ide-bridge--close-view) #'ignore)
                    ((symbol-function 'jsonrpc-async-request)
                     (lambda (_conn method params &rest _) (push (cons method params) sent))))
            (funcall decide))
          (nreverse sent))
      (kill-buffer buf))))

(ert-deftest cibt-decisions-name-the-proposal ()
  "Every decision names its proposal; an accept sends the text only when it was edited."
  (should (equal (cibt-decisions #'ignore #'claude-ide-bridge-accept)
                 '((:diffAccepted :tabName "T" :proposal 17))))
  (should (equal (cibt-decisions (lambda () (goto-char (point-max)) (insert "more\n"))
                                 #'claude-ide-bridge-accept)
                 '((:diffAccepted :tabName "T" :proposal 17 :contents "new\nmore\n"))))
  ;; An edit undone is still sent as text: the tick moved, the number alone would be a guess.
  (should (equal (cibt-decisions (lambda () (insert "x") (delete-char -1))
                                 #'claude-ide-bridge-accept)
                 '((:diffAccepted :tabName "T" :proposal 17 :contents "new\n"))))
  (should (equal (cibt-decisions #'ignore #'claude-ide-bridge-reject)
                 '((:diffRejected :tabName "T" :proposal 17)))))

(ert-deftest cibt-flycheck ()
  "In a buffer where flycheck runs, its errors are the diagnostics."
  ;; Debian's elpa-flycheck, which -Q does not put on `load-path'.
  (dolist (d (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
    (add-to-list 'load-path d))
  (skip-unless (require 'flycheck nil t))
  (cibt-with-buffer "ab 日本 cd\nx\n"
    (setq-local flycheck-mode t)
    (setq-local flycheck-current-errors
                (list (flycheck-error-new-at 1 4 'warning "bad" :checker 'chk :id "E1"
                                             :buffer (current-buffer))))
    (let ((d (car (claude-ide-bridge--buffer-diagnostics (current-buffer)))))
      (should (equal (plist-get d :severity) "Warning"))
      (should (equal (plist-get d :message) "bad"))
      (should (equal (plist-get d :source) "chk"))
      (should (equal (plist-get d :code) "E1"))
      (should (equal (plist-get (plist-get d :range) :start) '(:line 0 :character 3)))
      (should (equal (plist-get (plist-get d :range) :end) '(:line 0 :character 9))))))

;; Issue 37
(ert-deftest cibt-permission-text ()
  "A permission question shows the model's text escaped and bounded."
  (let ((q (list :session "session-abcdef" :tool "Bash\e"
                 :input (list :command (concat "touch x\e[2J\n\u202e" (make-string 5000 ?a))))))
    (should (equal (claude-ide-bridge--question-text q 30)
                   "Claude (session session-) asks to use Bash\\x1b: command: touch x\\x1b[2J\\x0a\\u202eaaaaaaaa …")))
  (should (equal (claude-ide-bridge--question-text
                  (list :session "" :tool "mcp__s__t" :input (list :n [1] :f :json-false :z nil)))
                 "Claude (session ) asks to use mcp__s__t: {\"n\":[1],\"f\":false,\"z\":null}")))

(ert-deftest cibt-permission-capability ()
  "The capability askPermission is the option: true, false or the tools' names."
  (dolist (c '((t . t) (nil . :json-false) (("Bash" "mcp__*") . ["Bash" "mcp__*"])))
    (let ((claude-ide-bridge-permissions (car c)))
      (should (equal (plist-get (plist-get (claude-ide-bridge--initialize-params) :capabilities)
                                :askPermission)
                     (cdr c))))))

(provide 'claude-ide-bridge-test)
;;; claude-ide-bridge-test.el ends here
