package main

import (
	"context"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"sort"
	"strings"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/runner"
)

// programs is the program policy of autocoder.toml (and --allow-programs)
// over the runner.
type programs struct {
	cfg      config.Config
	allowAll bool
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
	return p.cfg.ProgramAllowed(pr.Command, args, p.allowAll)
}

func (p programs) Run(ctx context.Context, dir string, pr step.Program) step.ProgramResult {
	var env []string
	for k, v := range pr.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	spec := runner.Spec{Command: pr.Command, Args: pr.Args, Shell: pr.Shell || pr.Args == nil, Dir: dir, Env: env,
		Timeout: p.cfg.ProgramTimeout(pr.Timeout), MaxOutput: p.cfg.Programs.MaxOutputBytes}
	r, err := runner.Run(ctx, spec)
	out := step.ProgramResult{Stdout: string(r.Stdout), Stderr: string(r.Stderr), ReturnCode: r.ExitCode,
		Runtime: r.Duration.Round(time.Millisecond).Seconds()}
	switch {
	case err != nil:
		out.Status, out.Error = "failure", err.Error()
		if h := step.HintOf(err); h != "" {
			out.Error += "; hint: " + h
		}
	case r.TimedOut:
		out.Status = "timeout"
		out.Error = fmt.Sprintf("stopped after %s", spec.Timeout)
	case r.ExitCode == 0:
		out.Status = "success"
	default:
		out.Status = "failure"
	}
	if r.Truncated {
		out.Error = strings.TrimSpace(out.Error + fmt.Sprintf(" (the output was longer than %d bytes: its start and end are kept)", spec.MaxOutput))
	}
	return out
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
