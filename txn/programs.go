package txn

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"io"
	"os"
	"sort"
	"strings"
)

// ProgramPolicy decides whether a step's program may run and runs it:
// runner.Policy, over autocoder.toml's [programs] (runner.New).
type ProgramPolicy interface {
	// Allowed reports whether p may run; reason says why not.
	Allowed(p step.Program) (ok bool, reason string)
	// Run runs p in dir and reports what it did. When ctx ends, the program
	// is stopped with every process it started.
	Run(ctx context.Context, dir string, p step.Program) step.ProgramResult
}

// ProgramRefusedError is a program that the policy does not allow.
type ProgramRefusedError struct{ Command, Reason string }

func (e *ProgramRefusedError) Error() string {
	return fmt.Sprintf("refused to run %q: %s", e.Command, e.Reason)
}

// Hint says what to do.
func (e *ProgramRefusedError) Hint() string {
	// Read by the model (the user's terminal names the flag and the
	// allow entry instead): what the prompts teach about a refused program.
	return "the user's settings do not let this program run: do not send it again; ask the user to run it or to allow it, or go on without it"
}

// Class is refused: the program policy does not allow it.
func (e *ProgramRefusedError) Class() step.Class { return step.ClassRefused }

// VerifyError is a step whose files failed the [verify] command: the step
// was rolled back, and Output is what the command printed.
type VerifyError struct {
	Output string
	Err    error
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("the verify command failed (%v); the step was rolled back", e.Err)
}

// Hint gives the command's output, which says what to fix; a command that
// printed nothing gets no empty line, but says so.
func (e *VerifyError) Hint() string {
	out := strings.TrimRight(e.Output, " \t\r\n")
	if strings.TrimSpace(out) == "" {
		return "the verify command ([verify] command in autocoder.toml) printed nothing: run it in the repository to see why it fails, fix that, and send the step again"
	}
	return "fix what the verify command reports and send the step again:\n" + out
}

// Class is step failed: the step's files did not pass the verify command, so it was rolled back.
func (e *VerifyError) Class() step.Class { return step.ClassStepFailed }

// refusal says why the policy does not let p run, or nil when it may. A
// refused program is not run and is reported as refused; it does not
// refuse the step, whose files still apply (DESIGN.md, programs).
func (w *workspace) refusal(p step.Program) error {
	if w.e.opts.Programs == nil {
		return &ProgramRefusedError{Command: p.Command, Reason: "programs are off"}
	}
	if ok, why := w.e.opts.Programs.Allowed(p); !ok {
		return &ProgramRefusedError{Command: p.Command, Reason: why}
	}
	if p.Cwd != "" {
		if _, err := w.resolveDir(p.Cwd); err != nil {
			return &ProgramRefusedError{Command: p.Command, Reason: "its cwd: " + err.Error()}
		}
	}
	return nil
}

func (w *workspace) resolveDir(raw string) (string, error) {
	return w.e.Policy.Dir(raw)
}

// runPrograms runs a step's programs after its commit, then records the
// files they created, changed or deleted as a commit of their own, so that
// undo removes them too. A file that held the user's uncommitted work
// before the programs ran is never committed: if a program changed it, the
// result says so and the file is left as it is.
func programName(p step.Program, i int) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprintf("program-%d", i+1)
}

// refusedResult answers a program the policy did not let run.
func refusedResult(p step.Program, i int, err error) step.ProgramResult {
	return step.ProgramResult{Name: programName(p, i), Status: step.ProgramRefused, Error: err.Error(), Hint: step.HintOf(err), ReturnCode: -1}
}

func (e *Engine) runPrograms(ctx context.Context, s *step.Step, res *step.Result) {
	w := &workspace{e: e, files: map[string]*file{}}
	// What the policy refuses is answered first and never run; git status
	// and the index write below are for the programs that do run.
	refused := map[int]error{}
	for i, p := range s.Programs {
		if !p.Terminate {
			if err := w.refusal(p); err != nil {
				refused[i] = err
			}
		}
	}
	if len(refused) == len(s.Programs) {
		for i, p := range s.Programs {
			res.Programs = append(res.Programs, refusedResult(p, i, refused[i]))
		}
		return
	}
	// Programs (and git status, below) see the repository as git does: the
	// index goes to disk first.
	if err := e.Flush(); err != nil {
		res.Programs = append(res.Programs, step.ProgramResult{Name: "(all)", Status: step.ProgramFailure, Error: err.Error()})
		return
	}
	before, err := e.dirtyState()
	if err != nil {
		res.Programs = append(res.Programs, step.ProgramResult{Name: "(all)", Status: step.ProgramFailure, Error: err.Error()})
		return
	}
	for i, p := range s.Programs {
		name := programName(p, i)
		if err := refused[i]; err != nil {
			res.Programs = append(res.Programs, refusedResult(p, i, err))
			continue
		}
		if p.Terminate {
			res.Programs = append(res.Programs, e.stopLive(name))
			continue
		}
		dir := e.repo.Root
		if p.Cwd != "" {
			if d, err := w.resolveDir(p.Cwd); err == nil {
				dir = d
			}
		}
		if p.Live {
			if e.liveBefore == nil {
				e.liveBefore = before
			}
			res.Programs = append(res.Programs, e.startLive(ctx, s, p, name, dir))
			if len(e.live) == 0 {
				e.liveBefore = nil // it did not start
			}
			continue
		}
		pr := e.opts.Programs.Run(ctx, dir, p)
		pr.Name = name
		res.Programs = append(res.Programs, pr)
	}
	// A program may have written a .gitattributes, changed git's
	// configuration or added a submodule: the files it changed, and the
	// steps after it, are read as git reads them now.
	e.forgetChanged()
	after, err := e.dirtyState()
	if err != nil {
		res.Programs = append(res.Programs, step.ProgramResult{Name: "(all)", Status: step.ProgramFailure, Error: err.Error()})
		return
	}
	var mine, theirs, big []string
	for p, sum := range after {
		old, wasDirty := before[p]
		switch {
		case !wasDirty && strings.HasPrefix(sum, bigPrefix):
			big = append(big, p)
		case !wasDirty:
			mine = append(mine, p)
		case old != sum && !e.liveOwns(p):
			theirs = append(theirs, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok && !e.liveOwns(p) {
			theirs = append(theirs, p) // a program reverted the user's change
		}
	}
	sort.Strings(mine)
	sort.Strings(theirs)
	sort.Strings(big)
	if len(big) > 0 {
		res.Programs[len(res.Programs)-1].Error = strings.TrimSpace(res.Programs[len(res.Programs)-1].Error +
			fmt.Sprintf("\nleft uncommitted, because they are over the limit of %d bytes ([apply] max_file_bytes): %s",
				e.opts.MaxFileBytes, strings.Join(big, ", ")))
	}
	if len(theirs) > 0 {
		res.Programs[len(res.Programs)-1].Error = strings.TrimSpace(res.Programs[len(res.Programs)-1].Error +
			"\nleft uncommitted, because they held your own uncommitted work: " + strings.Join(theirs, ", "))
	}
	if len(mine) == 0 {
		return
	}
	commit, err := e.commitProgramOutput(s, mine)
	if err != nil {
		res.Programs[len(res.Programs)-1].Error = strings.TrimSpace(res.Programs[len(res.Programs)-1].Error +
			"\ncould not commit the files the programs changed: " + err.Error())
		return
	}
	if commit != "" {
		res.ProgramCommit = commit
	}
}

// dirtyState maps every path git status reports to a hash of its content
// ("" when deleted), so a change by a program to an already dirty file shows.
func (e *Engine) dirtyState() (map[string]string, error) {
	paths, err := e.repo.Dirty()
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(paths))
	for _, p := range paths {
		if fi, err := os.Lstat(e.repo.Abs(p)); err == nil && !fi.Mode().IsRegular() {
			// A link, or what a program left that is no file (a named
			// pipe nobody writes to would be read forever): its type
			// and, for a link, its target.
			target, _ := os.Readlink(e.repo.Abs(p))
			m[p] = fi.Mode().Type().String() + " " + target
			continue
		}
		m[p] = e.fingerprint(e.repo.Abs(p))
	}
	return m, nil
}

// bigPrefix starts the fingerprint of a file over [apply] max_file_bytes.
const bigPrefix = "big "

// fingerprint says what a dirty path holds in a fixed amount of memory:
// "" when it is gone, a SHA-256 of its content read as a stream, or for a
// file over [apply] max_file_bytes (which is never committed) its size and
// modification time, from a stat, without reading it.
func (e *Engine) fingerprint(full string) string {
	fi, err := os.Lstat(full)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ""
	case err != nil:
		return "unreadable"
	case fi.Size() > e.opts.MaxFileBytes:
		return fmt.Sprintf("%s%d %d", bigPrefix, fi.Size(), fi.ModTime().UnixNano())
	}
	f, err := os.Open(full)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// commitProgramOutput commits the given paths as they are in the worktree,
// on the work branch, as the step's own follow-up commit.
func (e *Engine) commitProgramOutput(s *step.Step, paths []string) (string, error) {
	head, err := e.repo.ReadHEAD()
	if err != nil {
		return "", err
	}
	headTree, err := e.treeOf(head.Hash)
	if err != nil {
		return "", err
	}
	w := &workspace{e: e, files: map[string]*file{}}
	for _, p := range paths {
		rel, err := e.Policy.Resolve(p)
		if err != nil {
			return "", err
		}
		if _, err := w.get(rel); err != nil {
			return "", err
		}
	}
	ch, err := w.changes(headTree)
	if err != nil || len(ch) == 0 {
		return "", err
	}
	held, err := e.lockIndex()
	if err != nil {
		return "", err
	}
	var names []string
	for _, p := range s.Programs {
		names = append(names, p.Command)
	}
	ps := &step.Step{ID: s.ID + ".programs", Reason: "Record the files changed by " + strings.Join(names, "; "), Dialect: s.Dialect}
	commit, p, err := e.buildCommit(ps, head, headTree, w, ch)
	if err != nil {
		return "", err
	}
	if err := e.execute(p, held); err != nil {
		return "", err
	}
	return commit.String(), e.Flush()
}
