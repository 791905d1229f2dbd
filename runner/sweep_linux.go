//go:build linux

package runner

// Nothing a step starts outlives it. Killing the program's process group
// misses a process that left it (setsid, or setpgid into a group of its
// own), as a daemon does. autocoder therefore makes itself the child
// subreaper of its process tree (prctl PR_SET_CHILD_SUBREAPER): a process
// whose parent dies is re-parented to autocoder instead of to init, so it
// stays findable. After each program and the kill of its group, sweep
// kills, until none is left:
//   - every process whose environment carries the program's run token
//     (AUTOCODER_RUN_ID, set for the program and inherited by all it starts);
//   - every child of autocoder's that came to it as an orphan from another
//     session: a setsid escapee that also cleared its environment.
// Killed orphans are autocoder's children by then, and it reaps them.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runTokenVar names the environment variable that marks a program's tree.
const runTokenVar = "AUTOCODER_RUN_ID"

var subreaper sync.Once

// becomeSubreaper makes this process the subreaper of its descendants, once.
// Failure (an old kernel) leaves the group kill and the token sweep.
func becomeSubreaper() {
	subreaper.Do(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// running holds the process groups of the programs running now in this
// process (an MCP server may run more than one), whose members a sweep for
// another program must leave alone.
var running sync.Map // pgid -> struct{}

func newRunToken() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// proc is what a sweep needs to know of a process.
type proc struct {
	pid, ppid, pgrp, sid int
	zombie               bool
}

// readProc reads /proc/<pid>/stat: "pid (comm) S ppid pgrp session ...";
// comm may hold spaces and parentheses, so the fields follow the last ")".
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	sid, _ := strconv.Atoi(f[3])
	return proc{pid: pid, ppid: ppid, pgrp: pgrp, sid: sid, zombie: f[0] == "Z" || f[0] == "X"}, true
}

func hasToken(pid int, entry []byte) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(e, entry) {
			return true
		}
	}
	return false
}

// sweep kills what the program run with token left running anywhere (see
// the file's comment), and reaps those that became this process's children,
// and the members of the program's group pgid that the group kill left as
// this process's zombies (orphans re-parented to it as subreaper). It never
// kills by the group id: the program is reaped by now, and the id names its
// group only while a member, even a zombie, is left in it.
func sweep(pgid int, token string) {
	self, mySid := os.Getpid(), unix.Getpgrp()
	if s, err := unix.Getsid(0); err == nil {
		mySid = s
	}
	entry := []byte(runTokenVar + "=" + token)
	mine := map[int]bool{} // killed by this sweep: a zombie of them is ours to reap
	for round := 0; round < 20; round++ {
		d, err := os.Open("/proc")
		if err != nil {
			return
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		var killed []proc
		for _, n := range names {
			pid, err := strconv.Atoi(n)
			if err != nil || pid == self {
				continue
			}
			p, ok := readProc(pid)
			if !ok {
				continue
			}
			if p.zombie {
				if p.ppid == self && (p.pgrp == pgid || mine[pid]) {
					killed = append(killed, p) // dead already: only to reap
				}
				continue
			}
			_, busy := running.Load(p.pgrp)
			orphan := p.ppid == self && p.sid != mySid && !busy
			if orphan || hasToken(pid, entry) {
				syscall.Kill(pid, syscall.SIGKILL)
				killed = append(killed, p)
				mine[pid] = true
			}
		}
		if len(killed) == 0 {
			return
		}
		reap(self, killed)
	}
}

// reap waits for the killed processes that are this process's children,
// each for a second at most (one in uninterruptible sleep may take longer;
// it is killed already and is reaped by a later sweep or by init).
func reap(self int, killed []proc) {
	deadline := time.Now().Add(time.Second)
	for _, p := range killed {
		if p.ppid != self {
			continue // its own parent reaps it, or it comes to us as an orphan
		}
		for {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
			if got == p.pid || err != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
