//go:build linux

package runner

// The reaper. Nothing a program starts may outlive its step, whatever it
// does to hide: leave its process group, start a session of its own (setsid),
// clear its environment, fork twice so that its parent is gone. A process
// whose parent dies is re-parented to the nearest ancestor that is a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER), so a subreaper finds every
// descendant it has: the live ones hang below it, the orphans become its
// children. autocoder cannot be that subreaper for a program itself: its
// other children (git, another program running beside it) would come to it
// as orphans too, and nothing tells whose they are. So each program runs
// under a reaper of its own: autocoder starts itself again (/proc/self/exe,
// with argv[0] reaperArg0), and that process becomes a subreaper, starts
// the program, and when the program has exited kills every descendant it
// has left, until it has no child at all; then it reports the program's
// exit status and exits. Everything below the reaper is the program's, and
// nothing else is.
//
// The reaper is started by the binary that calls Run (init below runs
// before main); it speaks to Run over a pipe on descriptor 3: "pid N" once
// the program started, then "exit STATUS" (the raw wait status) or
// "starterr ERRNO" when the program could not start. Run asks it to stop
// the program with SIGTERM (sent on to every descendant) and to kill it
// with SIGUSR1 (SIGKILL to every descendant).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// reaperArg0 is the argv[0] that makes a process started from autocoder's
// own executable the reaper of the program named by its other arguments.
const reaperArg0 = "autocoder-reaper"

func init() {
	if len(os.Args) >= 3 && os.Args[0] == reaperArg0 {
		os.Exit(reaper(os.Args[1], os.Args[2:]))
	}
}

// reaper runs the program path with argv (see the file's comment) and
// returns the reaper's own exit code (the program's is on the pipe).
func reaper(path string, argv []string) int {
	status := os.NewFile(3, "status")
	if status == nil {
		return 126
	}
	syscall.CloseOnExec(3)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(status, "starterr %d\n", errnoOf(err))
		return 126
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGUSR1)
	// The program leads a process group of its own: a terminal's Ctrl-C
	// reaches neither it nor the reaper, and autocoder decides.
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		fmt.Fprintf(status, "starterr %d\n", errnoOf(err))
		return 127
	}
	fmt.Fprintf(status, "pid %d\n", pid)
	go func() {
		for s := range sigs {
			if s == syscall.SIGTERM {
				signalDescendants(syscall.SIGTERM)
			} else {
				signalDescendants(syscall.SIGKILL)
			}
		}
	}()
	// Reap every child, orphans included. Once the program is gone, kill
	// what is left after each reaping: a process forked just before a
	// kill comes to the reaper as an orphan when its parent dies, which is
	// a reaping here too. No child left (ECHILD) means no descendant left:
	// the top of any chain of descendants is a child of the reaper.
	var prog syscall.WaitStatus
	done := false
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break
		}
		if got == pid {
			prog, done = ws, true
		}
		if done {
			signalDescendants(syscall.SIGKILL)
		}
	}
	fmt.Fprintf(status, "exit %d\n", uint32(prog))
	return 0
}

func errnoOf(err error) int {
	var e syscall.Errno
	if errors.As(err, &e) {
		return int(e)
	}
	return int(syscall.EINVAL)
}

// signalDescendants sends sig to every descendant of this process.
func signalDescendants(sig syscall.Signal) {
	for _, pid := range descendants(os.Getpid()) {
		syscall.Kill(pid, sig)
	}
}

// descendants lists the live processes below root, read from /proc.
func descendants(root int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	children := map[int][]int{}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok && !p.zombie {
			children[p.ppid] = append(children[p.ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// proc is what a sweep needs to know of a process.
type proc struct {
	pid, ppid int
	zombie    bool
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
	if len(f) < 2 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return proc{pid: pid, ppid: ppid, zombie: f[0] == "Z" || f[0] == "X"}, true
}

// reaperReport is what the reaper said on its pipe.
type reaperReport struct {
	pid      int // the program's, 0 until it started
	status   syscall.WaitStatus
	exited   bool  // "exit" was said: the program and all it left are gone
	startErr error // the program could not start
}

// readReport reads the reaper's pipe to its end (the reaper's exit).
func readReport(f *os.File) reaperReport {
	var r reaperReport
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			continue
		}
		switch key {
		case "pid":
			r.pid = int(n)
		case "exit":
			r.status, r.exited = syscall.WaitStatus(uint32(n)), true
		case "starterr":
			r.startErr = syscall.Errno(n)
		}
	}
	return r
}
