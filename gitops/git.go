package gitops

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Git runs git with args in the work tree dir and returns what it wrote to
// its standard output. ctx ends the process: a cancelled call does not wait
// for git. A failure is a *gitError, with what git wrote to its standard
// error; it unwraps to the *exec.ExitError (git ran and failed) or to the
// error that kept git from starting.
//
// This is the one place autocoder runs git (gitops/layout_test.go holds
// that): git's environment is handled here, once (gitEnv).
func Git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return runGit(gitCommand(ctx, dir, nil, args...), args)
}

// gitCommand is git with args in dir, not started: for a caller that
// feeds git's input as it runs (git check-ignore --stdin) or runs it in an
// environment of its own. env nil is this process's environment.
func gitCommand(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = gitEnv(env)
	// Killed by ctx, git may leave a process of its own (a hook, an
	// fsmonitor) holding its output open: the call still ends.
	cmd.WaitDelay = time.Second
	return cmd
}

// runGit runs cmd (of gitCommand, with args) to its end; see Git.
func runGit(cmd *exec.Cmd, args []string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, &gitError{args: args, err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return out, nil
}

// repoLocationEnv are the variables that tell git where a repository, its
// index or its objects are, as git's own local_repo_env lists them, apart
// from the configuration ones (GIT_CONFIG_PARAMETERS and the like are the
// user's `git -c`, which git var must see: config.go leaves the configuration
// to git when they are set). gitops reads the repository at its root, not
// where these say (a hook sets GIT_INDEX_FILE to a temporary index, git
// rebase --exec sets GIT_DIR): git run with them would answer about
// another repository or index than the one autocoder reads and writes.
var repoLocationEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE",
	"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_NAMESPACE",
}

// gitEnv is env without repoLocationEnv. The locale is kept: nothing reads
// git's messages, which are shown to the user as git wrote them, and every
// output read is a machine format (-z, --porcelain, git var).
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, v := range repoLocationEnv {
			// Windows reads its environment without regard to case.
			if k == v || runtime.GOOS == "windows" && strings.EqualFold(k, v) {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// gitError is a git command that failed, with what it said.
type gitError struct {
	args   []string
	err    error
	stderr string
}

// Error is what git said, after the command; when it said nothing, the
// error alone (a git that cannot start, an exit status).
func (e *gitError) Error() string {
	if e.stderr == "" {
		return e.err.Error()
	}
	return "git " + strings.Join(e.args, " ") + ": " + e.stderr
}

func (e *gitError) Unwrap() error { return e.err }
