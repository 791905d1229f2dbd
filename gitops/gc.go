package gitops

// git gc beside us. A step's commit is its branch ref moved onto objects
// the step has just written as loose files. `git gc --prune=now` (gc's
// `git prune --expire now`) removes every loose object unreachable when it
// walked the refs, whatever its age: a prune that walked the refs before
// the ref moved removes the step's new objects, even after the move, and
// the branch then names a commit that is gone. (A gc that walks after the
// move sees them reachable and keeps them; with git's default
// --prune=2.weeks.ago the fresh mtimes keep them too.) So the objects a
// Repo writes, or finds there and reuses, are kept until a ref moves onto
// them; then keepObjects waits while a git gc runs (git's gc.pid: a gc
// holds it from its start to its end, its prune included), and writes
// again any of them that is gone. After that wait nothing that started
// before the move is still pruning, and a gc that starts later sees the
// ref. A `git prune` run by hand, without gc, holds no gc.pid: the README
// states that limit.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// pendingObject is an object written (or reused) since a ref last moved.
type pendingObject struct {
	h    Hash
	typ  plumbing.ObjectType
	data []byte
}

// remember records an object a ref may soon name.
func (r *Repo) remember(h Hash, typ plumbing.ObjectType, data []byte) {
	r.pendMu.Lock()
	r.pending = append(r.pending, pendingObject{h, typ, data})
	r.pendMu.Unlock()
}

// gcWait bounds how long keepObjects waits for a running git gc; past it
// the objects are checked anyway (a gc.pid left by a crashed gc on a
// machine whose pids were reused would otherwise hold every step).
const gcWait = 10 * time.Minute

// keepObjects makes sure every object remembered since the last ref move
// is in the repository, once no git gc runs (see the file's comment), and
// forgets them.
func (r *Repo) keepObjects() error {
	r.pendMu.Lock()
	pending := r.pending
	r.pending = nil
	r.pendMu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	for deadline := time.Now().Add(gcWait); r.gcRunning() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	reopened := false
	for _, o := range pending {
		if r.looseExists(o.h) {
			continue
		}
		if !reopened {
			r.reopen() // the packs a gc wrote
			reopened = true
		}
		if r.hasObject(o.h) {
			continue
		}
		if err := r.writeLoose(o.h, o.typ, o.data); err != nil {
			return fmt.Errorf("write again the %s %s that a git gc beside autocoder removed: %w", o.typ, o.h, err)
		}
	}
	return nil
}

// gcRunning reports whether a git gc holds gc.pid, as git gc itself judges
// another gc (builtin/gc.c lock_repo_for_gc): the file names a pid and a
// host; on this host the pid is alive, elsewhere it counts; a file older
// than 12 hours is stale.
func (r *Repo) gcRunning() bool {
	p := filepath.Join(r.CommonDir, "gc.pid")
	fi, err := os.Stat(p)
	if err != nil || time.Since(fi.ModTime()) > 12*time.Hour {
		return false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	pidText, host, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		return false
	}
	if me, _ := os.Hostname(); host != me {
		return true
	}
	return processAlive(pid)
}
