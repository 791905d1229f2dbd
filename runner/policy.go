package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/shellwords"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// Policy is the program policy of the configuration in effect over Run and
// Start: what txn.Engine asks whether a step's program may run (Allowed),
// and what runs it and answers with a step.ProgramResult (Run, Start). It
// is txn.Options.Programs; New makes it.
type Policy struct {
	cfg      config.Config
	allowAll bool
	// ifTrusted is the configuration trusting the repository's
	// autocoder.toml would give, when that is not trusted: a program it
	// would allow is refused with a reason that names autocoder trust.
	ifTrusted *config.Config
}

// Verifier runs the [verify] command of autocoder.toml in the repository at
// root: txn.Options.Verify. Its error says why the command failed, and
// output is what it printed.
type Verifier func(ctx context.Context, root string) (output string, err error)

// New is everything an engine needs of runner under the configuration in
// effect (s, as config.Load gives it): the program policy, for
// txn.Options.Programs, and the verify command, for txn.Options.Verify (nil
// when autocoder.toml sets none). allowAll is the command-line flag that
// lets every program run (--allow-programs); it never lets a step set a
// variable that decides what runs.
//
// New first takes the model API's key out of autocoder's environment
// (withdrawKeys): call it before the engine opens, since every process
// autocoder starts from then on (git included) inherits that environment.
// Calling it again is harmless.
func New(s config.Settings, allowAll bool) (*Policy, Verifier) {
	withdrawKeys(s)
	p := &Policy{cfg: s.Config, allowAll: allowAll}
	if len(s.Ignored) > 0 {
		p.ifTrusted = &s.IfTrusted
	}
	return p, verifier(s.Config)
}

// Allowed reports whether pr may run, and why (the reason is meant for the
// feedback and is never empty).
func (p *Policy) Allowed(pr step.Program) (bool, string) {
	args := pr.Args
	if pr.Shell {
		args = nil
	} else if args == nil {
		args = []string{}
	}
	// The environment first: even a flag that allows every program does not
	// let a step choose what PATH or GIT_* mean for it.
	if ok, why := envAllowed(p.cfg, pr.Env); !ok {
		return false, why
	}
	ok, why := programAllowed(p.cfg, pr.Command, args, p.allowAll)
	if !ok && p.ifTrusted != nil {
		if would, _ := programAllowed(*p.ifTrusted, pr.Command, args, false); would {
			why = "the repository's autocoder.toml would allow it, but the user has not trusted that file: " +
				"its [programs] settings count only after the user reviews it (autocoder trust --show) and runs autocoder trust"
		}
	}
	return ok, why
}

// RefusedHint is what the user is told about a program the policy
// refused: the flag that lets every program run, named for the command
// (verb: "apply", "run"), and the allow entry that would let this one run,
// when one would (not for a line the shell would expand, whatever the
// list says). "" when neither helps (an environment variable refused).
func (p *Policy) RefusedHint(verb string) func(step.Program) string {
	return func(pr step.Program) string {
		if ok, _ := envAllowed(p.cfg, pr.Env); !ok {
			return ""
		}
		h := "to let it run: " + verb + " again with --allow-programs (any program, this run only)"
		// The entry is the words that would run, written as the allow
		// list reads them (shellwords): a shell line as /bin/sh splits
		// it, a program and its arguments quoted where they need it.
		words := append([]string{pr.Command}, pr.Args...)
		if pr.Shell || pr.Args == nil {
			w, err := shellwords.Simple(pr.Command)
			if err != nil {
				return h // the shell would decide what runs: no entry allows it
			}
			words = w
		}
		entry := shellwords.Join(words)
		try := p.cfg
		try.Programs.Enabled, try.Programs.Allow = true, []string{entry}
		if ok, _ := (&Policy{cfg: try}).Allowed(pr); ok {
			h += fmt.Sprintf(", or allow it under [programs] in autocoder.toml (enabled = true, allow = [%q])", entry)
		}
		return h
	}
}

// programAllowed reports whether a step may run a program under c, and why
// (the reason is meant for the feedback and is never empty).
//
// args == nil means command is one shell command line (it runs with
// /bin/sh -c); otherwise command is the program and args its arguments, run
// without a shell. flagAll is the command-line flag that allows every
// program: it wins over the file.
//
// Otherwise programs must be enabled and the command's words must start with
// the words of an allow entry, with no argument that widens the entry
// (argrules.go). A shell command line must be a single simple command with
// fixed words (shellwords.Command): an operator, a redirection, an
// expansion, a glob or a comment would let the shell decide what runs, so
// such a line is refused whatever the allow-list says.
func programAllowed(c config.Config, command string, args []string, flagAll bool) (bool, string) {
	if flagAll {
		return true, "every program is allowed by the command-line flag"
	}
	if !c.Programs.Enabled {
		// The command-line flag is the user's to give, not the model's:
		// the user is told its name apart (RefusedHint).
		return false, "programs are off: set enabled = true under [programs] in autocoder.toml " +
			"and add the command to allow"
	}
	var words []string
	if args == nil {
		// One splitter for the policy and the Axon reader (shellwords, over
		// mvdan.cc/sh): the words it returns are exactly the words /bin/sh
		// would run, and a line that is more than one simple command with
		// fixed words (a list, a pipeline, a redirection, an expansion, a
		// glob, a tilde or brace expansion, a comment) is refused, since
		// the shell, not the allow list, would decide what runs.
		w, err := shellwords.Command(command)
		if err != nil {
			return false, fmt.Sprintf("command %q is not one simple command with fixed words: %v; "+
				"run one program with its arguments, without shell operators, writing every argument out "+
				"and quoting what the shell would expand ('*.go')", clip(command), err)
		}
		words = w
	} else {
		words = append([]string{command}, args...)
	}
	if len(words) == 0 || words[0] == "" {
		return false, "the command is empty"
	}
	// Every entry the command starts with is tried: a longer entry may name
	// an argument a shorter one does not permit.
	refused := ""
	for _, entry := range c.Programs.Allow {
		prefix, err := shellwords.Command(entry)
		if err != nil || len(prefix) == 0 {
			continue // Load refuses such entries; a hand-built Config allows nothing by them
		}
		if !hasWordPrefix(words, prefix) {
			continue
		}
		f, why := widens(words, len(prefix))
		if f == "" {
			return true, fmt.Sprintf("allowed by the [programs] allow entry %q", entry)
		}
		if refused == "" {
			refused = fmt.Sprintf("%q would let %s run or write something other than what the allow entry %q permits (%s); "+
				"drop %s, or add an allow entry that names it (such as %q)", clip(f), words[0], entry, why, clip(f), clip(entry+" "+f))
		}
	}
	if refused != "" {
		return false, refused
	}
	line := strings.Join(words, " ")
	if len(c.Programs.Allow) == 0 {
		return false, fmt.Sprintf("%q is not allowed: the [programs] allow list in autocoder.toml is empty; "+
			"add a prefix of the command, such as %q", clip(line), words[0])
	}
	return false, fmt.Sprintf("%q is not allowed: it starts with none of the [programs] allow entries %s; "+
		"add a prefix of it to allow in autocoder.toml", clip(line), quoteList(c.Programs.Allow))
}

// hasWordPrefix reports whether words starts with prefix, word for word.
func hasWordPrefix(words, prefix []string) bool {
	if len(prefix) > len(words) {
		return false
	}
	for i, p := range prefix {
		if words[i] != p {
			return false
		}
	}
	return true
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// envAllowed reports whether a step may run its programs with env added to
// autocoder's own environment under c, and why not: every key must be on
// [programs] env and none may decide what runs (config.ForbiddenEnv). The
// reason names the first key refused, in sorted order.
func envAllowed(c config.Config, env map[string]string) (bool, string) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if why := config.ForbiddenEnv(k); why != "" {
			return false, fmt.Sprintf("the step's env sets %s, which a step may never set: %s; "+
				"remove it from env (set it in autocoder's own environment if the program needs it)", k, why)
		}
		listed := false
		for _, a := range c.Programs.Env {
			if a == k {
				listed = true
			}
		}
		if !listed {
			return false, fmt.Sprintf("the step's env sets %s, which is not on the [programs] env list of autocoder.toml (%s); "+
				"remove it from env, or add it to that list", k, strings.Join(c.Programs.Env, ", "))
		}
	}
	return true, "every variable of the step's env is on the [programs] env list"
}

// Run runs pr in dir (Run's process group, timeout and output cap, as
// autocoder.toml sets them) and answers what it did.
func (p *Policy) Run(ctx context.Context, dir string, pr step.Program) step.ProgramResult {
	spec := p.spec(dir, pr)
	r, err := Run(ctx, spec)
	return programResult(spec, r, err)
}

// spec is what Run is given for pr in dir.
func (p *Policy) spec(dir string, pr step.Program) Spec {
	var env []string
	for k, v := range pr.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return Spec{Command: pr.Command, Args: pr.Args, Shell: pr.Shell || pr.Args == nil, Dir: dir, Env: env,
		Timeout: p.cfg.ProgramTimeout(pr.Timeout), MaxOutput: p.cfg.Programs.MaxOutputBytes}
}

// programResult is the answer for a program that ran.
func programResult(spec Spec, r Result, err error) step.ProgramResult {
	out := step.ProgramResult{Stdout: string(r.Stdout), Stderr: string(r.Stderr), ReturnCode: r.ExitCode,
		Runtime: r.Duration.Round(time.Millisecond).Seconds()}
	switch {
	case err != nil:
		out.Status, out.Error = step.ProgramFailure, err.Error()
		if h := step.HintOf(err); h != "" {
			out.Error += "; hint: " + h
		}
	case r.TimedOut:
		out.Status = step.ProgramTimeout
		out.Error = fmt.Sprintf("stopped after %s", spec.Timeout)
	case r.ExitCode == 0:
		out.Status = step.ProgramSuccess
	default:
		out.Status = step.ProgramFailure
	}
	if r.Truncated {
		out.Error = strings.TrimSpace(out.Error + fmt.Sprintf(" (the output was longer than %d bytes: its start and end are kept)", spec.MaxOutput))
	}
	return out
}

// Start starts a live program (step.Program.Live). Its timeout is its own
// set_timeout when it gave one; otherwise it runs until it is stopped, by
// check_program or at the end of the command.
func (p *Policy) Start(ctx context.Context, dir string, pr step.Program) (*LiveProgram, error) {
	spec := p.spec(dir, pr)
	spec.Timeout = pr.Timeout
	if spec.Timeout <= 0 {
		spec.Timeout = 100 * 365 * 24 * time.Hour
	}
	l, err := Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &LiveProgram{l: l, spec: spec}, nil
}

// LiveProgram is a Live as the engine sees it: what it wrote and how it
// ended, as step.ProgramResult.
type LiveProgram struct {
	l    *Live
	spec Spec
}

func (lp *LiveProgram) take(r step.ProgramResult) step.ProgramResult {
	out, errOut, ran := lp.l.Take()
	r.Stdout, r.Stderr, r.Runtime = string(out), string(errOut), ran.Round(time.Millisecond).Seconds()
	return r
}

// Report is what the program wrote since the last Report (capped as other
// program output), its run time, and done when it has ended on its own:
// then Status and ReturnCode are final.
func (lp *LiveProgram) Report() (step.ProgramResult, bool) {
	done, r, err := lp.l.Exited()
	if !done {
		return lp.take(step.ProgramResult{Status: step.ProgramRunning, ReturnCode: -1}), false
	}
	// It ended on its own (or at its timeout): its final answer, with only
	// the output not reported yet.
	return lp.take(programResult(lp.spec, r, err)), true
}

// Stop ends the program with every process it started and reports its
// output since the last Report, with Status terminated (or how it ended,
// when it had ended already).
func (lp *LiveProgram) Stop() step.ProgramResult {
	running, r, err := lp.l.Stop()
	if !running {
		return lp.take(programResult(lp.spec, r, err))
	}
	return lp.take(step.ProgramResult{Status: step.ProgramTerminated, ReturnCode: r.ExitCode})
}

// clip quotes a value in a message, cut as every message cuts one.
func clip(s string) string { return textpos.Clip(s, 60) }
