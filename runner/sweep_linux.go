//go:build linux

package runner

// The fallback sweep, for a program whose reaper (reaper_linux.go) was
// killed before it could end the program's tree: the program can, since
// it runs as the same user. Its orphans then come to autocoder, which is
// the child subreaper of everything it starts (prctl
// PR_SET_CHILD_SUBREAPER), so they stay findable: sweep kills, until none
// is left, the program and its descendants, and every process whose
// environment carries the program's run token (AUTOCODER_RUN_ID, set for
// the program and inherited by all it starts). What the program started
// and hid from both (an orphan from before the reaper died that cleared
// its environment) is the limit the README states. autocoder's other
// children are never touched: they neither descend from the program nor
// carry its token.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runTokenVar names the environment variable that marks a program's tree.
const runTokenVar = "AUTOCODER_RUN_ID"

var subreaper sync.Once

// becomeSubreaper makes this process the subreaper of its descendants, once.
// Failure (an old kernel) leaves the reaper and the token sweep.
func becomeSubreaper() {
	subreaper.Do(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

func newRunToken() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
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

// sweep kills the program prog (0 when it never started) with its
// descendants, and what carries token, and reaps those that are this
// process's children.
func sweep(prog int, token string) {
	self := os.Getpid()
	entry := []byte(runTokenVar + "=" + token)
	for round := 0; round < 20; round++ {
		var targets []int
		if prog > 0 {
			if p, ok := readProc(prog); ok && !p.zombie && p.ppid == self {
				targets = append(targets, prog)
			}
			targets = append(targets, descendants(prog)...)
		}
		d, err := os.Open("/proc")
		if err != nil {
			return
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			if pid, err := strconv.Atoi(n); err == nil && pid != self && hasToken(pid, entry) {
				targets = append(targets, pid)
			}
		}
		if len(targets) == 0 {
			return
		}
		for _, pid := range targets {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		reap(self, targets)
	}
}

// reap waits for the killed processes that are this process's children,
// each for a second at most (one in uninterruptible sleep may take longer;
// it is killed already and is reaped by a later sweep or by init).
func reap(self int, killed []int) {
	deadline := time.Now().Add(time.Second)
	for _, pid := range killed {
		if p, ok := readProc(pid); !ok || p.ppid != self {
			continue // gone, or its own parent reaps it
		}
		for {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if got == pid || err != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
