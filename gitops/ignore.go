package gitops

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/autocoder/autocoder/step"
)

// IgnoredError is a path a step would create that .gitignore (or
// .git/info/exclude, or core.excludesFile) ignores: git add refuses it
// ("The following paths are ignored by one of your .gitignore files"), and
// so does autocoder, naming the rule.
type IgnoredError struct {
	Path    string
	Source  string // the file that holds the rule, as git names it
	Line    string // its line number
	Pattern string
}

func (e *IgnoredError) Error() string {
	return fmt.Sprintf("refused %s: git ignores it (%s:%s: %s), so git add would not add it either", e.Path, e.Source, e.Line, e.Pattern)
}

// Class is refused.
func (e *IgnoredError) Class() step.Class { return step.ClassRefused }

// Hint says what to do.
func (e *IgnoredError) Hint() string {
	return "write the file somewhere git does not ignore, or change the rule in " + e.Source + " (git check-ignore -v " + e.Path + " shows it); an ignored file cannot be part of a step's commit"
}

// Ignored reports, for each of paths that git would ignore, the rule that
// ignores it. A rule that un-ignores ("!pattern") does not count. The
// caller asks about untracked paths only: git is asked with --no-index,
// which would call a tracked path ignored too (see ignoreChecker).
func (r *Repo) Ignored(paths []string) (map[string]*IgnoredError, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	r.ignoreMu.Lock()
	defer r.ignoreMu.Unlock()
	if r.ignore == nil {
		r.ignore = &ignoreChecker{r: r}
	}
	return r.ignore.ask(paths)
}

// ForgetIgnores stops the git check-ignore kept by the Repo, so that the
// next question starts one that reads the rules afresh: a step wrote a
// .gitignore (whose stat may not tell, within a file system's timestamp
// granularity).
func (r *Repo) ForgetIgnores() {
	r.ignoreMu.Lock()
	defer r.ignoreMu.Unlock()
	if r.ignore != nil {
		r.ignore.stop()
	}
}

// ignoreChecker is one `git check-ignore --stdin` kept for the Repo's life
// (a session's calls, a run's steps), asked path by path: a process start
// costs 2-3 ms, most of a call that creates a file. git stays the one
// implementation of the ignore rules.
//
// With --non-matching every path asked gets a record, so an answer is known
// to be complete; GIT_FLUSH=1 makes git write each record at once (it
// flushes after each path of --stdin, check_ignore_stdin_paths). With
// --no-index git does not read the index (which would go stale in a kept
// process) and takes no lock; the engine asks only about paths that are
// not in its index.
//
// git reads the rules once: core.excludesFile and info/exclude when it
// starts, a folder's .gitignore when it first looks into it. So the checker
// keeps the stat of every rule file the process may have read (and of the
// repository's config), taken before git read it, and the
// core.excludesFile and core.ignoreCase it started with; before each
// question it stats them again, and any difference (another file, size,
// mtime, ctime, or one appearing or going; another core.excludesFile or
// core.ignoreCase, set in any of git's configuration files, the user's
// global one or an include) stops the process, to start a new one.
type ignoreChecker struct {
	r        *Repo
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Reader
	stderr   *lockedBuffer
	excludes string // core.excludesFile as git resolves it ("": none)
	fold     string // core.ignoreCase as set ("": unset)
	// seen are the rule files the process may have read, with their stat
	// (nil: absent) before it started or first looked at them.
	seen map[string]os.FileInfo
}

// maxIgnoreFiles bounds the rule files a checker stats before a question
// (a stat is about a microsecond; a restart 2-3 ms).
const maxIgnoreFiles = 256

// Ignore sources git reads once, besides the .gitignore of each folder.
func (c *ignoreChecker) sources() []string {
	return []string{filepath.Join(c.r.CommonDir, "config"), filepath.Join(c.r.CommonDir, "info", "exclude"), c.excludes}
}

// excludesFile is core.excludesFile as git finds it now.
func (c *ignoreChecker) excludesFile() string {
	return c.r.userConfigFile(c.r.configValue("core.excludesFile"), "ignore")
}

func (c *ignoreChecker) ask(paths []string) (map[string]*IgnoredError, error) {
	// A session that visited many folders restarts rather than stat
	// every .gitignore it ever saw before each question.
	if c.cmd != nil && (len(c.seen) > maxIgnoreFiles || c.stale()) {
		c.stop()
	}
	res, err := c.query(paths)
	if err != nil {
		// A process that died or answered out of turn: once more with a
		// new one, then the error is the step's.
		c.stop()
		res, err = c.query(paths)
		if err != nil {
			c.stop()
		}
	}
	return res, err
}

// stale reports whether a rule file the process may have read changed.
func (c *ignoreChecker) stale() bool {
	if c.excludesFile() != c.excludes || c.r.configValue("core.ignoreCase") != c.fold {
		return true
	}
	for p, was := range c.seen {
		if !sameStat(was, p) {
			return true
		}
	}
	return false
}

func (c *ignoreChecker) query(paths []string) (map[string]*IgnoredError, error) {
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return nil, err
		}
	}
	// The .gitignore of each folder on the way, stated before git reads it.
	for _, p := range paths {
		for d := path.Dir(p); ; d = path.Dir(d) {
			f := filepath.Join(c.r.Root, filepath.FromSlash(d), ".gitignore")
			if _, ok := c.seen[f]; !ok {
				c.seen[f], _ = os.Stat(f)
			}
			if d == "." {
				break
			}
		}
	}
	// Written while the answers are read: the pipes hold 64 KiB each.
	go func(in io.Writer) {
		var b bytes.Buffer
		for _, p := range paths {
			b.WriteString(topMagic)
			b.WriteString(p)
			b.WriteByte(0)
		}
		in.Write(b.Bytes())
	}(c.in)
	res := map[string]*IgnoredError{}
	for _, p := range paths {
		var f [4]string
		for i := range f {
			b, err := c.out.ReadBytes(0)
			if err != nil {
				return nil, c.failed(err)
			}
			f[i] = string(b[:len(b)-1])
		}
		src, line, pat, got := f[0], f[1], f[2], strings.TrimPrefix(f[3], topMagic)
		if got != p {
			return nil, c.failed(fmt.Errorf("answered for %q when asked about %q", got, p))
		}
		if src == "" || strings.HasPrefix(pat, "!") {
			continue
		}
		res[p] = &IgnoredError{Path: p, Source: src, Line: line, Pattern: pat}
	}
	return res, nil
}

// topMagic starts every path asked: git reads --stdin paths as pathspecs,
// where a leading ":" is magic (":(glob)x" made it exit, ":/y" asked about
// "y"). After long magic the rest is taken as it is, and "top" is the one
// magic check-ignore allows (it refuses "literal", and so
// GIT_LITERAL_PATHSPECS); the answer names the path with it.
const topMagic = ":(top)"

func (c *ignoreChecker) failed(err error) error {
	if msg := bytes.TrimSpace(c.stderr.Bytes()); len(msg) > 0 {
		return fmt.Errorf("git check-ignore: %v: %s", err, msg)
	}
	return fmt.Errorf("git check-ignore: %v", err)
}

// start starts git check-ignore, stating the rule files it reads at once
// first.
func (c *ignoreChecker) start() error {
	c.excludes, c.fold = c.excludesFile(), c.r.configValue("core.ignoreCase")
	c.seen = map[string]os.FileInfo{}
	for _, p := range c.sources() {
		if p != "" {
			c.seen[p], _ = os.Stat(p)
		}
	}
	cmd := gitCommand(context.Background(), c.r.Root, nil, "check-ignore", "-v", "-z", "--stdin", "--non-matching", "--no-index")
	// The user's pathspec variables would make every question magic that
	// check-ignore refuses ("pathspec magic not supported"): the paths are
	// names (topMagic), so they are turned off.
	cmd.Env = append(cmd.Env, "GIT_FLUSH=1",
		"GIT_LITERAL_PATHSPECS=0", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0", "GIT_ICASE_PATHSPECS=0")
	c.stderr = &lockedBuffer{}
	cmd.Stderr = c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git check-ignore: %v", err)
	}
	c.cmd, c.in, c.out = cmd, in, bufio.NewReader(out)
	return nil
}

// sameStat reports whether p is still the file was stated (nil: absent).
// Symbolic links are followed: a user's excludes file is often one.
func sameStat(was os.FileInfo, p string) bool {
	now, _ := os.Stat(p)
	return SameStat(was, now)
}

// stop ends the process: at the end of its input git exits; one that does
// not within a second is killed. Nothing of it is left (Wait reaps it).
func (c *ignoreChecker) stop() {
	if c.cmd == nil {
		return
	}
	c.in.Close()
	done := make(chan struct{})
	go func() {
		c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		c.cmd.Process.Kill()
		<-done
	}
	c.cmd, c.in, c.out = nil, nil, nil
}

// lockedBuffer is a process's stderr, read while the process runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b.Bytes()...)
}
