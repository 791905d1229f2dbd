// Package bridge is `autocoder bridge`: the native-messaging host that
// autocoder's browser extension talks to, the registry of repositories it
// may act on, and the installer of the host manifest.
//
// The browser starts the host with the caller's origin as its argument and
// talks to it on standard input and output, in frames (frame.go). The host
// answers only autocoder's extension (origin.go), acts only on repositories
// the user registered in a terminal (registry.go), and does with an answer
// exactly what autocoder apply does: the same parser, the same engine and
// policy, one commit per step. Each request leaves a line in the
// repository's bridge log (journal.go). It opens no network port.
//
// The protocol, for the extension: each message is a JSON object
//
//	{"id": "r1", "type": "preview", "repository": "NAME", "site": "chatgpt.com", "answer": "…"}
//
// with type preview (parse and dry run), apply, undo ("steps": N, default
// 1), status (the work branch's steps) or repositories (the registered
// names). "repository" may be left out when one is registered. Any other
// field is refused. The reply (Reply) carries the same id, ok, and for
// preview and apply the report of apply --format json, the feedback for
// the model, a summary (steps, files, lines added and removed) and, for a
// preview, the dry run's patch; ok false carries error and hint.
package bridge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// Options configure Serve.
type Options struct {
	// Engine is how the engine is opened on a registered repository
	// (autocoder.Open), with its settings: programs only as they allow,
	// since the browser has no flag that allows more.
	Engine autocoder.Options
	// Registry is the registry file's path.
	Registry string
	// Log receives a line per refusal, for the user who runs the host by
	// hand (the browser shows a host's standard error nowhere).
	Log io.Writer
	// Now stamps the log lines; nil: time.Now.
	Now func() time.Time
}

// Request is one message of the extension.
type Request struct {
	ID         string `json:"id,omitempty"`
	Type       string `json:"type"`
	Repository string `json:"repository,omitempty"`
	Site       string `json:"site,omitempty"`
	Answer     string `json:"answer,omitempty"`
	Steps      int    `json:"steps,omitempty"`
}

// Summary is what a preview or an apply touches.
type Summary struct {
	Steps   int      `json:"steps"`
	Files   []string `json:"files"`
	Added   int      `json:"added"`
	Removed int      `json:"removed"`
}

// RepositoryInfo is a registered repository as the extension sees it: its
// name only, never its path.
type RepositoryInfo struct {
	Name string `json:"name"`
}

// Reply is the answer to one request.
type Reply struct {
	ID   string `json:"id,omitempty"`
	Type string `json:"type"`
	OK   bool   `json:"ok"`
	// Outcome is one word: previewed, applied, already_applied, failed,
	// refused, no_block, undone, status, repositories, error.
	Outcome    string `json:"outcome"`
	Repository string `json:"repository,omitempty"`
	Error      string `json:"error,omitempty"`
	Hint       string `json:"hint,omitempty"`
	Class      string `json:"class,omitempty"`
	// Message is one line for the panel.
	Message string   `json:"message,omitempty"`
	Summary *Summary `json:"summary,omitempty"`
	// Commits are the commits an apply made, or found made already.
	Commits []string `json:"commits,omitempty"`
	// Report is the JSON of apply --format json (of undo or log
	// --format json for undo and status).
	Report json.RawMessage `json:"report,omitempty"`
	// Feedback is the executor's answer for the model, in its dialect.
	Feedback     string           `json:"feedback,omitempty"`
	Patch        string           `json:"patch,omitempty"`
	Repositories []RepositoryInfo `json:"repositories,omitempty"`
	// Truncated says what was cut to keep the reply under the browser's
	// 1 MiB, and how to see it whole.
	Truncated string `json:"truncated,omitempty"`
}

// Serve is the host: it checks the caller (args, as the browser passed
// them), then answers each message on r on w until the browser closes the
// pipe. A frame over the limit is answered with a refusal and ends the
// host (its bytes are not read); a frame cut short ends it quietly.
func Serve(ctx context.Context, args []string, r io.Reader, w io.Writer, o Options) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	originErr := checkOrigin(args)
	for {
		msg, err := readFrame(r)
		if errors.Is(err, io.EOF) {
			return originErr
		}
		var big *TooLargeError
		if errors.As(err, &big) {
			send(w, failed(Request{}, err))
			return err
		}
		if err != nil {
			return fmt.Errorf("reading the browser's message: %w", err)
		}
		if originErr != nil {
			fmt.Fprintf(o.Log, "autocoder: bridge: %v\n", originErr)
			send(w, failed(Request{}, originErr))
			return originErr
		}
		if err := send(w, o.handle(ctx, msg)); err != nil {
			return err
		}
	}
}

// send writes a reply within the browser's limit.
func send(w io.Writer, rep Reply) error {
	return writeFrame(w, fit(rep))
}

func failed(req Request, err error) Reply {
	rep := Reply{ID: req.ID, Type: req.Type, Outcome: "error", Error: err.Error(), Hint: step.HintOf(err), Class: step.ClassOf(err).String()}
	if step.ClassOf(err) == step.ClassRefused {
		rep.Outcome = "refused"
	}
	return rep
}

// readRequest decodes a message strictly: an unknown field (a path, a
// folder, a flag) is refused, never ignored.
func readRequest(msg []byte) (Request, error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, &step.Error{C: step.ClassUsage, Msg: "the request is not one autocoder bridge reads", Err: err,
			Fix: `send {"type": "preview"|"apply"|"undo"|"status"|"repositories", "repository": NAME, "site": HOST, "answer": TEXT}; a repository is named, never given as a path`}
	}
	if dec.More() {
		return req, &step.Error{C: step.ClassUsage, Msg: "the request holds more than one JSON value"}
	}
	if len(req.Site) > 253 || strings.ContainsFunc(req.Site, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return req, &step.Error{C: step.ClassUsage, Msg: "the site is not a host name"}
	}
	return req, nil
}

func (o Options) handle(ctx context.Context, msg []byte) Reply {
	req, err := readRequest(msg)
	if err != nil {
		return failed(req, err)
	}
	reg, err := LoadRegistry(o.Registry)
	if err != nil {
		return failed(req, err)
	}
	if req.Type == "repositories" {
		rep := Reply{ID: req.ID, Type: req.Type, OK: true, Outcome: "repositories", Repositories: []RepositoryInfo{}}
		for _, rp := range reg.Repositories {
			rep.Repositories = append(rep.Repositories, RepositoryInfo{Name: rp.Name})
		}
		return rep
	}
	switch req.Type {
	case "preview", "apply", "undo", "status":
	default:
		return failed(req, &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("unknown request type %q", req.Type),
			Fix: "the types are preview, apply, undo, status and repositories"})
	}
	rp, err := reg.Lookup(req.Repository)
	if err != nil {
		return failed(req, err)
	}
	ae, err := autocoder.Open(ctx, rp.Path, o.Engine)
	if err != nil {
		return failed(req, err)
	}
	rep := o.run(ctx, ae, req)
	rep.Repository = rp.Name
	if err := ae.Close(); err != nil && rep.Error == "" {
		rep.OK, rep.Error, rep.Hint = false, "the index was not written: "+err.Error(), step.HintOf(err)
	}
	return rep
}

// run answers a request on the repository's engine, and logs it.
func (o Options) run(ctx context.Context, ae *autocoder.Engine, req Request) (rep Reply) {
	e := ae.Engine
	entry := logEntry{Site: req.Site, Type: req.Type}
	if req.Type == "preview" || req.Type == "apply" {
		sum := sha256.Sum256([]byte(req.Answer))
		entry.Answer = hex.EncodeToString(sum[:])
	}
	defer func() {
		entry.Outcome, entry.Commits = rep.Outcome, rep.Commits
		if rep.Summary != nil {
			entry.Steps = rep.Summary.Steps
		}
		if err := appendLog(e, o.Now(), entry); err != nil && rep.Error == "" {
			rep.Message += " (the bridge log was not written: " + err.Error() + ")"
		}
	}()
	switch req.Type {
	case "undo":
		return o.undo(e, req)
	case "status":
		branch, entries, err := e.Log()
		if err != nil {
			return failed(req, err)
		}
		var buf bytes.Buffer
		report.LogJSON(&buf, branch, entries)
		return Reply{ID: req.ID, Type: req.Type, OK: true, Outcome: "status", Report: buf.Bytes(),
			Message: fmt.Sprintf("work branch %s: %d commit(s)", branch, len(entries))}
	}
	return o.applyAnswer(ctx, ae, req, entry.Answer)
}

func (o Options) undo(e *txn.Engine, req Request) Reply {
	n := req.Steps
	if n == 0 {
		n = 1
	}
	if n < 0 {
		return failed(req, &step.Error{C: step.ClassUsage, Msg: "steps must be a positive number"})
	}
	undone, err := e.Undo(n)
	if err != nil {
		return failed(req, err)
	}
	var buf bytes.Buffer
	report.UndoneJSON(&buf, undone)
	rep := Reply{ID: req.ID, Type: req.Type, OK: true, Outcome: "undone", Report: buf.Bytes(),
		Message: fmt.Sprintf("undid %d step(s); autocoder redo in the repository puts the last one back", len(undone))}
	for _, u := range undone {
		rep.Commits = append(rep.Commits, u.Commit)
	}
	return rep
}

// applyAnswer is preview and apply: apply's parser and engine, and apply's
// report.
func (o Options) applyAnswer(ctx context.Context, ae *autocoder.Engine, req Request, hash string) Reply {
	e := ae.Engine
	maxBytes := ae.Settings.Apply.MaxResponseBytes
	rep := Reply{ID: req.ID, Type: req.Type}
	if maxBytes > 0 && int64(len(req.Answer)) > maxBytes {
		return failed(req, &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("the answer is larger than %d bytes", maxBytes),
			Fix: "raise [apply] max_response_bytes in the repository's autocoder.toml, or apply it from a file"})
	}
	items := protocol.Parse([]byte(req.Answer))
	readable := 0
	var errs []*step.ParseError
	for _, it := range items {
		if it.Step != nil {
			readable++
		} else {
			errs = append(errs, it.Err)
		}
	}
	if readable == 0 {
		var buf bytes.Buffer
		report.Unreadable(&buf, errs, step.ClassNoBlock.ExitCode(), "no instruction block in this answer", "")
		var results []step.Result
		for _, it := range items {
			results = append(results, step.Unreadable(it.Err, true))
		}
		rep.OK, rep.Outcome, rep.Report, rep.Summary = true, "no_block", buf.Bytes(), &Summary{Files: []string{}}
		rep.Feedback = string(protocol.Feedback(results))
		rep.Message = "no instruction block in this answer"
		return rep
	}
	done, doneErr := alreadyApplied(e, hash)
	if doneErr != nil {
		return failed(req, doneErr)
	}
	if req.Type == "apply" && done != nil {
		rep.OK, rep.Outcome, rep.Commits = true, "already_applied", done
		rep.Summary = &Summary{Steps: readable, Files: []string{}}
		rep.Message = fmt.Sprintf("this answer is applied already (%d commit(s) on the work branch); nothing changed", len(done))
		return rep
	}
	// As under apply, a program that keeps running ends with the request.
	run := e.Execute(ctx, items, txn.RunOptions{DryRun: req.Type == "preview",
		StopLive: "stopped: a request of the browser extension is one shot, so a program that keeps running ends with it."})
	results, patch := run.Results, run.Patch
	code := step.Judge(results, false).ExitCode() // as apply's exit code
	out := report.Run{Branch: run.Branch, DryRun: req.Type == "preview", Results: results, Code: code,
		Subject: e.Subject, Patch: patch, PatchRaw: true,
		Allowed: ae.Programs.Allowed, RefusedHint: ae.Programs.RefusedHint("apply")}
	var buf bytes.Buffer
	out.JSON(&buf)
	rep.OK, rep.Report, rep.Feedback = true, buf.Bytes(), string(protocol.Feedback(results))
	rep.Summary = summarize(readable, patch)
	for _, r := range results {
		if req.Type == "apply" && r.Status == step.StatusApplied {
			for _, op := range r.Ops {
				if op.Status == step.StatusApplied && op.Path != "" && !slices.Contains(rep.Summary.Files, op.Path) {
					rep.Summary.Files = append(rep.Summary.Files, op.Path)
				}
			}
		}
		for _, c := range []string{r.Commit, r.ProgramCommit} {
			if c != "" {
				rep.Commits = append(rep.Commits, c)
			}
		}
	}
	switch {
	case req.Type == "preview":
		rep.Outcome, rep.Patch = "previewed", patch
		rep.Message = fmt.Sprintf("%d step(s), %d file(s), +%d -%d", rep.Summary.Steps, len(rep.Summary.Files), rep.Summary.Added, rep.Summary.Removed)
		if done != nil {
			rep.Message += "; this answer is applied already: apply would change nothing"
		}
	case code == 0:
		rep.Outcome = "applied"
		rep.Message = fmt.Sprintf("applied: %d commit(s) on %s", len(rep.Commits), out.Branch)
	default:
		rep.Outcome = "failed"
		if code == step.ClassRefused.ExitCode() {
			rep.Outcome = "refused"
		}
		rep.Message = fmt.Sprintf("not every step applied (exit code %d): see the report; %d commit(s) made", code, len(rep.Commits))
	}
	return rep
}

// summarize counts a dry run's patch: the files it touches and its lines
// added and removed. For an apply the patch is empty and only the steps
// count.
func summarize(steps int, patch string) *Summary {
	s := &Summary{Steps: steps, Files: []string{}}
	inHunk := false
	for _, line := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			inHunk = false
			if _, b, ok := strings.Cut(line, " b/"); ok {
				s.Files = append(s.Files, b)
			}
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case inHunk && strings.HasPrefix(line, "+"):
			s.Added++
		case inHunk && strings.HasPrefix(line, "-"):
			s.Removed++
		}
	}
	return s
}
