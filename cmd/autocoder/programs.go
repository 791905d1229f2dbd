package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autocoder/autocoder/step"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/runner"
	"github.com/autocoder/autocoder/shellwords"
	"github.com/autocoder/autocoder/txn"
)

// programs is the program policy of autocoder.toml (and --allow-programs)
// over the runner.
type programs struct {
	cfg      config.Config
	allowAll bool
	// ifTrusted is the configuration trusting the repository's
	// autocoder.toml would give, when that is not trusted: a program it
	// would allow is refused with a reason that names autocoder trust.
	ifTrusted *config.Config
}

// newPrograms is the program policy of the configuration in effect.
func newPrograms(s config.Settings, allowAll bool) programs {
	p := programs{cfg: s.Config, allowAll: allowAll}
	if len(s.Ignored) > 0 {
		p.ifTrusted = &s.IfTrusted
	}
	return p
}

func (p programs) Allowed(pr step.Program) (bool, string) {
	args := pr.Args
	if pr.Shell {
		args = nil
	} else if args == nil {
		args = []string{}
	}
	// The environment first: even a flag that allows every program does not
	// let a step choose what PATH or GIT_* mean for it.
	if ok, why := p.cfg.ProgramEnvAllowed(pr.Env); !ok {
		return false, why
	}
	ok, why := p.cfg.ProgramAllowed(pr.Command, args, p.allowAll)
	if !ok && p.ifTrusted != nil {
		if would, _ := p.ifTrusted.ProgramAllowed(pr.Command, args, false); would {
			why = "the repository's autocoder.toml would allow it, but the user has not trusted that file: " +
				"its [programs] settings count only after the user reviews it (autocoder trust --show) and runs autocoder trust"
		}
	}
	return ok, why
}

// refusedHint is what the user is told about a program the policy
// refused: the flag that lets every program run, named for the command
// (verb: "apply", "run"), and the allow entry that would let this one run,
// when one would (not for a line the shell would expand, whatever the
// list says). "" when neither helps (an environment variable refused).
func (p programs) refusedHint(verb string) func(step.Program) string {
	return func(pr step.Program) string {
		if ok, _ := p.cfg.ProgramEnvAllowed(pr.Env); !ok {
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
		if ok, _ := (programs{cfg: try}).Allowed(pr); ok {
			h += fmt.Sprintf(", or allow it under [programs] in autocoder.toml (enabled = true, allow = [%q])", entry)
		}
		return h
	}
}

func (p programs) Run(ctx context.Context, dir string, pr step.Program) step.ProgramResult {
	spec := p.spec(dir, pr)
	r, err := runner.Run(ctx, spec)
	return programResult(spec, r, err)
}

// spec is what the runner is given for pr in dir.
func (p programs) spec(dir string, pr step.Program) runner.Spec {
	var env []string
	for k, v := range pr.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return runner.Spec{Command: pr.Command, Args: pr.Args, Shell: pr.Shell || pr.Args == nil, Dir: dir, Env: env,
		Timeout: p.cfg.ProgramTimeout(pr.Timeout), MaxOutput: p.cfg.Programs.MaxOutputBytes}
}

// programResult is the answer for a program that ran.
func programResult(spec runner.Spec, r runner.Result, err error) step.ProgramResult {
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
func (p programs) Start(ctx context.Context, dir string, pr step.Program) (txn.LiveProgram, error) {
	spec := p.spec(dir, pr)
	spec.Timeout = pr.Timeout
	if spec.Timeout <= 0 {
		spec.Timeout = 100 * 365 * 24 * time.Hour
	}
	l, err := runner.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &liveProgram{l: l, spec: spec}, nil
}

// liveProgram is a runner.Live as the engine sees it.
type liveProgram struct {
	l    *runner.Live
	spec runner.Spec
}

func (lp *liveProgram) take(r step.ProgramResult) step.ProgramResult {
	out, errOut, ran := lp.l.Take()
	r.Stdout, r.Stderr, r.Runtime = string(out), string(errOut), ran.Round(time.Millisecond).Seconds()
	return r
}

func (lp *liveProgram) Report() (step.ProgramResult, bool) {
	done, r, err := lp.l.Exited()
	if !done {
		return lp.take(step.ProgramResult{Status: step.ProgramRunning, ReturnCode: -1}), false
	}
	// It ended on its own (or at its timeout): its final answer, with only
	// the output not reported yet.
	return lp.take(programResult(lp.spec, r, err)), true
}

func (lp *liveProgram) Stop() step.ProgramResult {
	running, r, err := lp.l.Stop()
	if !running {
		return lp.take(programResult(lp.spec, r, err))
	}
	pr := lp.take(step.ProgramResult{Status: step.ProgramTerminated, ReturnCode: r.ExitCode})
	return pr
}

// keyVars are the variables that may hold the model API's key.
func keyVars(cfg config.Config) []string {
	vars := []string{"OPENAI_API_KEY"}
	if k := cfg.Model.APIKeyEnv; k != "" && k != "OPENAI_API_KEY" {
		vars = append(vars, k)
	}
	return vars
}

// withdrawnKeys holds the values withdrawKeys took out of the environment.
var withdrawnKeys sync.Map

// withdrawKeys takes the model API's key ([model] api_key_env, and
// OPENAI_API_KEY) out of autocoder's environment as soon as autocoder.toml
// names its variable, before the engine opens: every process autocoder
// starts inherits that environment, so a program a response runs (or a
// verify command that runs code the response wrote) could write the key
// into a commit or send it anywhere, and git runs the hooks a program may
// have configured (core.fsmonitor, at git status). Nothing but run's
// request needs the key, and run reads it with apiKey. The environment
// autocoder started with stays in /proc/PID/environ, which sealEnviron
// keeps from the user's programs. A step's own variables may set these
// names again only where [programs] env allows.
func withdrawKeys(cfg config.Config) {
	sealEnviron()
	for _, k := range keyVars(cfg) {
		if v, ok := os.LookupEnv(k); ok {
			withdrawnKeys.Store(k, v)
			os.Unsetenv(k)
		}
	}
}

// apiKey is the value of the variable name, which withdrawKeys may have
// taken out of the environment.
func apiKey(name string) string {
	if v, ok := withdrawnKeys.Load(name); ok {
		return v.(string)
	}
	return os.Getenv(name)
}

// verifier runs the [verify] command of autocoder.toml, or is nil.
func verifier(cfg config.Config) func(ctx context.Context, root string) (string, error) {
	if strings.TrimSpace(cfg.Verify.Command) == "" {
		return nil
	}
	return func(ctx context.Context, root string) (string, error) {
		r, err := runner.Run(ctx, runner.Spec{Command: cfg.Verify.Command, Shell: true, Dir: root,
			Timeout: cfg.Verify.Timeout, MaxOutput: cfg.Programs.MaxOutputBytes})
		out := string(r.Stdout) + string(r.Stderr)
		switch {
		case err != nil:
			return out, err
		case r.TimedOut:
			return out, fmt.Errorf("timed out after %s", cfg.Verify.Timeout)
		case r.ExitCode != 0:
			return out, fmt.Errorf("exit code %d", r.ExitCode)
		}
		return out, nil
	}
}
