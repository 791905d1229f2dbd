package gitops

// The repository's own index file: where it is, reading it, locking it, and
// telling whether it changed since (the package index has the format).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autocoder/autocoder/gitops/index"
	"github.com/autocoder/autocoder/internal/mapfile"
)

// indexFile is this worktree's index.
func (r *Repo) indexFile() string { return filepath.Join(r.GitDir, "index") }

// ReadIndex reads this worktree's index (see index.ReadIndexWith), hashing and
// walking a shared index file only the first time this worktree reads it
// (see sharedVerified). To write it back, take LockIndex first.
func (r *Repo) ReadIndex() (*index.Index, error) {
	return index.ReadIndexWith(r.indexFile(), sharedVerified{filepath.Join(r.GitDir, "autocoder", "shared-index-scan")})
}

// sharedVerified is the index.Verifier of a worktree: a file of autocoder's
// own folder that starts with a line naming the shared index file verified
// last (its name, device, inode and size; a worktree's index links to one
// at a time), followed by the scan of it. Where the system gives no inode
// (Windows), nothing is vouched for. A read-only command does not create
// the folder to write it.
type sharedVerified struct{ path string }

func (v sharedVerified) line(name string, fi os.FileInfo) string {
	st := index.StatOf(fi)
	if st.Ino == 0 {
		return ""
	}
	return fmt.Sprintf("%s %d %d %d\n", name, st.Dev, st.Ino, fi.Size())
}

// Verified maps the file (it is replaced by rename, never written in place).
func (v sharedVerified) Verified(name string, fi os.FileInfo) ([]byte, func()) {
	want := v.line(name, fi)
	if want == "" {
		return nil, nil
	}
	b, release, err := mapfile.Map(v.path)
	if err != nil {
		return nil, nil
	}
	if !bytes.HasPrefix(b, []byte(want)) {
		release()
		return nil, nil
	}
	return b[len(want):], release
}

// Forget removes the file when it is about name.
func (v sharedVerified) Forget(name string) {
	if b, release, err := mapfile.Map(v.path); err == nil {
		about := bytes.HasPrefix(b, []byte(name+" "))
		release()
		if about {
			os.Remove(v.path)
		}
	}
}

func (v sharedVerified) Remember(name string, fi os.FileInfo, scan []byte) {
	line := v.line(name, fi)
	if line == "" {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(v.path), "shared-index-scan-*")
	if err != nil {
		return // no folder yet, or not writable: the next read verifies again
	}
	_, err = f.WriteString(line)
	if err == nil {
		_, err = f.Write(scan)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), v.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// SplitFrom is the number of entries from which an index is written split
// though git's configuration does not ask for it. Below it the whole file
// is written in a millisecond or two; at 100k entries it is 9 MB read,
// hashed and written at every step, where a split index writes the few
// entries that changed (issue #20). git reads a split index and keeps it
// split; libgit2 and go-git refuse one, and core.splitIndex=false brings
// the whole file back for them (git's tweak_split_index, and here).
const SplitFrom = 10000

// ConfigureSplit chooses whether ix is written split (index.Index.SetSplit) the
// way git does: core.splitIndex true or false decides (git's
// tweak_split_index); unset, an index read split stays split, and so does
// one written by a long-lived process, whose writes would otherwise each
// rewrite the whole file, or one of SplitFrom entries or more.
// splitIndex.maxPercentChange sets when a new shared index is written,
// splitIndex.sharedIndexExpire when an unused one is removed. Each is read
// as git reads it (ConfigValue: every file of every scope, read again when
// one changed, so a user who told git for every repository not to split is
// heard).
func (r *Repo) ConfigureSplit(ix *index.Index, longLived bool) {
	on := ix.Split() || longLived || ix.Len() >= SplitFrom
	// git_config_get_maybe_bool: a value that is no boolean is unset.
	if v, ok := r.ConfigBool("core", "splitIndex"); ok {
		on = v
	}
	pct, err := strconv.Atoi(r.ConfigValue("splitIndex", "maxPercentChange"))
	if err != nil {
		pct = index.DefaultMaxPercentChange
	}
	ix.SetSplit(on, pct)
	ix.SetSharedExpire(index.ParseExpiry(r.ConfigValue("splitIndex", "sharedIndexExpire")))
}

// LockIndex takes index.lock through its private name in p (see LockVia),
// for ReadIndex and index.PrepareIndex and FinishIndex under it.
func (r *Repo) LockIndex(p *Private) (*LockFile, error) { return r.lockVia(p, "index") }

// IndexStat is the stat of the index file, for Unchanged: git replaces the
// index by rename, so any write of git's is another file.
func (r *Repo) IndexStat() (os.FileInfo, error) { return os.Stat(r.indexFile()) }

// ModulesStat is the stat of the work tree's .gitmodules, which Gitlinks
// reads (nil when there is none), for ModulesUnchanged: a long-lived
// process reads the submodules again when it changed.
func (r *Repo) ModulesStat() os.FileInfo {
	fi, _ := os.Stat(r.modulesFile())
	return fi
}

// ModulesUnchanged reports whether .gitmodules is as ModulesStat found it
// (was), absent then and now included.
func (r *Repo) ModulesUnchanged(was os.FileInfo) bool { return sameStat(was, r.modulesFile()) }

// NamesSubmodules reports whether rel (slash-separated, repository
// relative) is the file whose paths Gitlinks counts as submodules: a step
// that writes it changes them.
func NamesSubmodules(rel string) bool { return rel == ".gitmodules" }

func (r *Repo) modulesFile() string { return filepath.Join(r.Root, ".gitmodules") }

// Gitlinks lists the submodule paths of the repository: every gitlink entry
// of ix, the repository's index (also one added without .gitmodules, as
// `git add` of an embedded repository makes; nil when it could not be read),
// and every path .gitmodules names (also one not yet in the index).
func (r *Repo) Gitlinks(ix *index.Index) map[string]bool {
	links := map[string]bool{}
	if ix != nil {
		for _, p := range ix.Gitlinks() {
			links[p] = true
		}
	}
	if b, err := os.ReadFile(r.modulesFile()); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
			if ok && strings.TrimSpace(k) == "path" {
				links[strings.TrimSpace(v)] = true
			}
		}
	}
	return links
}
