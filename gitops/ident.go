package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// IdentityError is a missing or unreadable user identity.
type IdentityError struct {
	Which  string // "author" or "committer"
	Detail string // what git said
}

func (e *IdentityError) Error() string {
	msg := "no " + e.Which + " identity: git cannot tell who you are"
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// Hint says what to do.
func (e *IdentityError) Hint() string {
	return `tell git who you are: git config --global user.email "you@example.com" && git config --global user.name "Your Name"`
}

// Identity returns the author and committer exactly as git resolves them
// (GIT_AUTHOR_*/GIT_COMMITTER_* variables, includes, the XDG and global
// files, user.useConfigOnly). It reads the configuration in-process as git
// does (identityInProcess) and asks `git var` wherever the configuration
// uses what that does not reproduce exactly (go-git's own lookup misses
// includes and the environment). When is zero unless GIT_AUTHOR_DATE /
// GIT_COMMITTER_DATE fix the time; the caller stamps each commit with the
// current time otherwise.
func (r *Repo) Identity() (author, committer Signature, err error) {
	return r.identity(os.LookupEnv, nil)
}

// identity is Identity in the environment env, which environ lists for
// `git var` (nil: this process's own; tests give their own to both).
func (r *Repo) identity(env func(string) (string, bool), environ []string) (author, committer Signature, err error) {
	if a, c, ok := r.identityInProcess(env); ok {
		return a, c, nil
	}
	// `git var`, one process for each identity.
	author, err = r.ident(env, environ, "GIT_AUTHOR_IDENT", "author", "GIT_AUTHOR_DATE")
	if err != nil {
		return
	}
	committer, err = r.ident(env, environ, "GIT_COMMITTER_IDENT", "committer", "GIT_COMMITTER_DATE")
	return
}

func (r *Repo) ident(env func(string) (string, bool), environ []string, v, which, dateVar string) (Signature, error) {
	args := []string{"var", v}
	out, err := runGit(gitCommand(context.Background(), r.Root, environ, args...), args)
	if err != nil {
		var ee *exec.ExitError
		if ge := (*gitError)(nil); errors.As(err, &ee) && errors.As(err, &ge) {
			detail := ge.stderr
			if i := strings.LastIndex(detail, "\n"); i >= 0 {
				detail = strings.TrimSpace(detail[i+1:])
			}
			return Signature{}, &IdentityError{Which: which, Detail: detail}
		}
		return Signature{}, fmt.Errorf("resolve %s identity: run git var: %w", which, err)
	}
	sig, err := ParseSignature(strings.TrimSpace(string(out)))
	if err != nil {
		return Signature{}, &IdentityError{Which: which, Detail: err.Error()}
	}
	if sig.Email == "" {
		return Signature{}, &IdentityError{Which: which, Detail: "empty email"}
	}
	if d, _ := env(dateVar); d == "" {
		// Keep git's time zone: the caller stamps the time of each commit.
		sig.When = timeZoneOnly(sig.When)
	}
	return sig, nil
}

// timeZoneOnly keeps a time's zone and clears the instant, so that IsZero
// style checks by the caller see "no fixed date" while the zone survives.
func timeZoneOnly(t time.Time) time.Time {
	return time.Time{}.In(t.Location())
}
