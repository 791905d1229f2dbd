package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
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
//
// It is kept while what it depends on is the same (identityKey): a run's
// steps ask nothing, and a session's call, or an answer of autocoder run,
// sees a user.name the user changed since. A failure is not kept: the
// next question tries again, so a session refused for want of an
// identity goes on once the user set one.
func (r *Repo) Identity() (author, committer Signature, err error) {
	key := r.identityKey()
	r.identMu.Lock()
	defer r.identMu.Unlock()
	if k := r.keptID; k != nil && k.key == key {
		return k.author, k.committer, nil
	}
	author, committer, err = r.identity(nil, nil)
	if err == nil {
		r.keptID = &keptIdentity{key: key, author: author, committer: committer}
	}
	return author, committer, err
}

// keptIdentity is an identity Identity resolved, with its identityKey.
type keptIdentity struct {
	key               string
	author, committer Signature
}

// identityKey is everything of git's configuration and of the environment
// that an identity depends on, as they are now: the configuration's
// identity keys (asked of git where it answered the read, as every
// question then is) and the variables git var reads.
func (r *Repo) identityKey() string {
	cfg := r.config()
	var b strings.Builder
	for _, k := range identKeys {
		v, valueless, set := cfg.value(r, k)
		fmt.Fprintf(&b, "%s %q %v %v\n", k, v, valueless, set)
	}
	for _, k := range identVars {
		v, set := os.LookupEnv(k)
		fmt.Fprintf(&b, "%s %q %v\n", k, v, set)
	}
	return b.String()
}

// identVars are the variables an identity depends on (git's ident.c).
var identVars = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "EMAIL", "TZ"}

// identity is Identity in the environment env, which environ lists for
// `git var` (nil: this process's own; tests give their own to both).
func (r *Repo) identity(env func(string) (string, bool), environ []string) (author, committer Signature, err error) {
	if a, c, ok := r.identityInProcess(env); ok {
		return a, c, nil
	}
	if env == nil {
		env = os.LookupEnv
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

// The identity without `git var`: git's own resolution (ident.c) for
// what users configure, from the configuration as config.go reads it,
// because two `git var` processes cost a few milliseconds of every apply.
// Whatever this does not reproduce exactly (an identity git would guess
// from the machine, a configuration config.go leaves to git, a name git
// would clean up, a date in another format) makes identityInProcess
// answer !ok, and the caller asks `git var`: the answer is git's either
// way.

// identKeys are the configuration keys the identity reads.
var identKeys = []string{"user.name", "user.email", "author.name", "author.email",
	"committer.name", "committer.email", "user.useconfigonly"}

// identConfig is the identity's view of one read of the configuration.
type identConfig struct {
	env  func(string) (string, bool)
	vals *configValues
}

// identityInProcess resolves the author and committer as `git var
// GIT_AUTHOR_IDENT` and `git var GIT_COMMITTER_IDENT` would in r with the
// environment env (nil: this process's, whose configuration the Repo
// keeps; else os.LookupEnv's kind). ok is false where git's answer could
// differ from ours (see above): then nothing is resolved.
func (r *Repo) identityInProcess(env func(string) (string, bool)) (author, committer Signature, ok bool) {
	var s *configState
	if env == nil {
		s, env = r.config(), os.LookupEnv
	} else {
		s = r.readConfig(env)
	}
	if s.in == nil {
		return Signature{}, Signature{}, false
	}
	for _, k := range identKeys {
		// A value the parser may have read otherwise than git; a name or
		// email without "=", which git refuses ("missing value").
		if s.in.unsure[k] || s.in.noValue[k] && k != "user.useconfigonly" {
			return Signature{}, Signature{}, false
		}
	}
	c := &identConfig{env: env, vals: s.in}
	author, ok = c.signature("AUTHOR", "author")
	if !ok {
		return Signature{}, Signature{}, false
	}
	committer, ok = c.signature("COMMITTER", "committer")
	if !ok {
		return Signature{}, Signature{}, false
	}
	return author, committer, true
}

// signature is git's fmt_ident for whose ("AUTHOR", "COMMITTER") in strict
// mode, where the name and email are given (the environment, then
// <which>.name/email, then user.*, then $EMAIL): the identity git guesses
// from the machine, and the errors, are git's to give.
func (c *identConfig) signature(whose, which string) (Signature, bool) {
	name, ok := c.pick("GIT_"+whose+"_NAME", which+".name", "user.name")
	if !ok {
		return Signature{}, false
	}
	email, ok := c.pick("GIT_"+whose+"_EMAIL", which+".email", "user.email")
	if !ok {
		// $EMAIL, unless user.useConfigOnly may forbid it.
		e, set := c.env("EMAIL")
		if _, uco := c.vals.vals["user.useconfigonly"]; !set || e == "" || uco {
			return Signature{}, false
		}
		email = e // git trims it, and drops crud: clean leaves such a value to git
	}
	if !clean(name) || !clean(email) {
		return Signature{}, false
	}
	sig := Signature{Name: name, Email: email}
	if d, set := c.env("GIT_" + whose + "_DATE"); set {
		when, ok := parseGitDate(d)
		if !ok {
			return Signature{}, false
		}
		sig.When = when
		return sig, true
	}
	// "now": the caller stamps each commit; the zone is the local one,
	// which Go reads from $TZ as the C library does for a zone's name (a
	// POSIX rule such as "CET-1" Go does not read: git is asked).
	loc := time.Local
	if tz, set := c.env("TZ"); set {
		l, err := time.LoadLocation(strings.TrimPrefix(tz, ":"))
		if err != nil {
			return Signature{}, false
		}
		loc = l
	}
	_, off := time.Now().In(loc).Zone()
	sig.When = time.Time{}.In(time.FixedZone("", off))
	return sig, true
}

// pick is the first of the environment variable and the configuration
// keys that gives a value; git takes an empty one from the environment
// as given (and refuses it), and skips an empty configured one.
func (c *identConfig) pick(envVar string, keys ...string) (string, bool) {
	if v, set := c.env(envVar); set {
		return v, v != ""
	}
	for _, k := range keys {
		if v := c.vals.vals[k]; v != "" {
			return v, true
		}
	}
	return "", false
}

// clean reports whether git would write s as it is: git drops "crud"
// (control characters, space and ,:;<>"\' ) from both ends and '<', '>'
// and newlines inside, and refuses an empty result; for such a value we
// let git say what it makes of it.
func clean(s string) bool {
	if s == "" || strings.ContainsAny(s, "<>") || hasControl(s) {
		return false
	}
	crud := func(c byte) bool { return c <= ' ' || strings.IndexByte(`,:;<>"\'.`, c) >= 0 }
	return !crud(s[0]) && !crud(s[len(s)-1])
}

// parseGitDate reads the date forms git reads exactly as they are: git's
// internal "<unix> <+hhmm>", with or without '@'. Any other form is git's.
func parseGitDate(d string) (time.Time, bool) {
	at := strings.HasPrefix(d, "@")
	sec, tz, ok := strings.Cut(strings.TrimPrefix(d, "@"), " ")
	if !ok || sec == "" || len(sec) > 10 || strings.TrimLeft(sec, "0123456789") != "" || len(tz) != 5 ||
		(tz[0] != '+' && tz[0] != '-') || strings.TrimLeft(tz[1:], "0123456789") != "" {
		return time.Time{}, false
	}
	n, _ := strconv.ParseInt(sec, 10, 64)
	// Without '@' git reads a number as seconds only from 100000000 on,
	// and through its calendar, which ends with 2099.
	if !at && (n < 100000000 || n >= 4102444800) {
		return time.Time{}, false
	}
	h, _ := strconv.Atoi(tz[1:3])
	m, _ := strconv.Atoi(tz[3:])
	if h >= 24 || m >= 60 {
		return time.Time{}, false
	}
	off := (h*60 + m) * 60
	if tz[0] == '-' {
		off = -off
	}
	return time.Unix(n, 0).In(time.FixedZone("", off)), true
}
