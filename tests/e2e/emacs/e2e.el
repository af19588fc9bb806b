;;; e2e.el --- Emacs 28 + eglot (Debian's elpa-eglot) with the msport server, headless  -*- lexical-binding: t -*-
;;
;; What a user does: open a PyTorch file, get flymake diagnostics from msport, hover, apply a
;; quick fix and save, then change msport's settings in .dir-locals.el and tell the server.
;; Everything seen goes to OUT.json; tests/e2e/test_editors.py compares it with msport's analysis.
;;
;; usage: E2E_SERVER_CMD='["python","-m","msport","serve"]' E2E_...=... \
;;        emacs --batch -Q -l tests/e2e/emacs/e2e.el FILE.py OUT.json
(dolist (d (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*")) (add-to-list 'load-path d))
(require 'eglot)
(require 'json)
(require 'python)

(defvar e2e-t0 (float-time))
(defun e2e-ms () (round (* 1000 (- (float-time) e2e-t0))))
(defvar e2e-file (expand-file-name (nth 0 command-line-args-left)))
(defvar e2e-out (expand-file-name (nth 1 command-line-args-left)))
(setq command-line-args-left nil)
(defvar e2e-result (list (cons 'ok :json-false)))
(defun e2e-put (k v) (setf (alist-get k e2e-result) v))
(defun e2e-env (name)
  (or (getenv name) (error "%s is not set" name)))
(defun e2e-env-int (name) (string-to-number (e2e-env name)))

;; How many diagnostics each publishDiagnostics carried, newest first.
(defvar e2e-pubs nil)
(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest params)
              (when (eq method 'textDocument/publishDiagnostics)
                (push (length (plist-get params :diagnostics)) e2e-pubs))))

(defun e2e-finish (code)
  (e2e-put 'total_ms (e2e-ms))
  (with-temp-file e2e-out (insert (json-encode e2e-result)))
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (kill-emacs code))

(defun e2e-wait (pred secs)
  "Wait for PRED; batch mode runs no idle timers, so flymake is kicked by hand."
  (let ((deadline (+ (float-time) secs)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (flymake-start))
    (funcall pred)))

(defun e2e-diagnostics ()
  "Flymake's diagnostics: 0-based line, column in characters (code points), type and text."
  (mapcar (lambda (d)
            (let ((beg (flymake-diagnostic-beg d)))
              (save-excursion
                (goto-char beg)
                (list (cons 'line (1- (line-number-at-pos beg)))
                      (cons 'col (- beg (line-beginning-position)))
                      (cons 'end (- (flymake-diagnostic-end d) beg))
                      (cons 'type (flymake-diagnostic-type d))
                      (cons 'text (flymake-diagnostic-text d))))))
          (sort (flymake-diagnostics) (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b))))))

(defun e2e-count-is (n)
  (lambda () (and e2e-pubs (eql (car e2e-pubs) n) (= (length (flymake-diagnostics)) n))))

(defun e2e-hover (line char)
  (let ((hover (jsonrpc-request (eglot--current-server-or-lose) :textDocument/hover
                                (list :textDocument (eglot--TextDocumentIdentifier)
                                      :position (list :line line :character char)))))
    (plist-get (plist-get hover :contents) :value)))

(defun e2e-configure (settings)
  "Write SETTINGS (a plist) for msport into .dir-locals.el and signal the server, as a user would."
  (let ((file (expand-file-name ".dir-locals.el" (file-name-directory e2e-file))))
    (with-temp-file file
      (insert (format "%S\n" `((nil . ((eglot-workspace-configuration . (:msport ,settings))))))))
    (hack-dir-local-variables-non-file-buffer)
    (eglot-signal-didChangeConfiguration (eglot--current-server-or-lose))))

(run-at-time 60 nil (lambda () (e2e-put 'error "watchdog: more than 60 s") (e2e-finish 3)))

(setq eglot-sync-connect 30
      eglot-autoshutdown t
      eglot-events-buffer-size 0
      enable-local-variables :all)
(add-to-list 'eglot-server-programs
             `(python-mode . ,(append (json-read-from-string (e2e-env "E2E_SERVER_CMD")) nil)))

(condition-case err
    (progn
      (find-file e2e-file)
      (apply #'eglot (eglot--guess-contact))          ; connects and sends didOpen
      (e2e-put 'connected_ms (e2e-ms))
      ;; 1. diagnostics
      (e2e-put 'initial_complete (if (e2e-wait (e2e-count-is (e2e-env-int "E2E_COUNT_INITIAL")) 30) t :json-false))
      (e2e-put 'diagnostics_ms (e2e-ms))
      (e2e-put 'diagnostics (e2e-diagnostics))
      ;; 2. hover on the warning
      (e2e-put 'hover (e2e-hover (e2e-env-int "E2E_WARN_LINE") (e2e-env-int "E2E_HOVER_CHAR_INITIAL")))
      ;; 3. quick fix: eglot's own code-action request over the diagnostic, apply, save
      (let* ((api (e2e-env "E2E_FIX_API"))
             (line (e2e-env-int "E2E_FIX_LINE"))
             (diag (seq-find (lambda (d)
                               (and (string-match-p (regexp-quote api) (flymake-diagnostic-text d))
                                    (= line (1- (line-number-at-pos (flymake-diagnostic-beg d))))))
                             (flymake-diagnostics))))
        (unless diag (error "no diagnostic for %s on line %d" api line))
        (let* ((actions (eglot-code-actions (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag) "quickfix"))
               (action (seq-find (lambda (a) (string-match-p (regexp-quote (e2e-env "E2E_FIX_TITLE")) (plist-get a :title)))
                                 actions)))
          (e2e-put 'code_actions (mapcar (lambda (a) (plist-get a :title)) actions))
          (unless action (error "no code action titled %s" (e2e-env "E2E_FIX_TITLE")))
          (eglot--apply-workspace-edit (plist-get action :edit))
          (eglot--signal-textDocument/didChange)
          (save-buffer)))
      (e2e-put 'after_fix_complete (if (e2e-wait (e2e-count-is (e2e-env-int "E2E_COUNT_AFTER_FIX")) 20) t :json-false))
      (e2e-put 'fix_ms (e2e-ms))
      ;; 4. settings through .dir-locals.el + workspace/didChangeConfiguration
      (e2e-configure (list :targetVersion (e2e-env "E2E_VERSION")))
      (let ((mark (e2e-env "E2E_VERSION_MARK")))
        (e2e-put 'version_applied
                 (if (e2e-wait (lambda () (seq-find (lambda (d) (string-match-p (regexp-quote mark) (flymake-diagnostic-text d)))
                                                    (flymake-diagnostics)))
                               20)
                     t :json-false)))
      (e2e-put 'hover_after_version (e2e-hover (e2e-env-int "E2E_HOVER_LINE") (e2e-env-int "E2E_HOVER_CHAR")))
      (e2e-configure (list :targetVersion (e2e-env "E2E_VERSION") :backend (e2e-env "E2E_BACKEND_ID")))
      (e2e-put 'backend_applied (if (e2e-wait (e2e-count-is (e2e-env-int "E2E_COUNT_AFTER_BACKEND")) 20) t :json-false))
      (e2e-configure (list :targetVersion (e2e-env "E2E_VERSION") :backend (e2e-env "E2E_BACKEND_ID")
                           :ignore (vector (e2e-env "E2E_IGNORE_CODE"))))
      (e2e-put 'ignore_applied (if (e2e-wait (e2e-count-is (e2e-env-int "E2E_COUNT_AFTER_IGNORE")) 20) t :json-false))
      (e2e-put 'diagnostics_after_ignore (e2e-diagnostics))
      (e2e-put 'publish_counts (reverse e2e-pubs))
      (e2e-put 'ok t)
      (e2e-finish 0))
  (error (e2e-put 'error (error-message-string err)) (e2e-finish 2)))
