//go:build unix

package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// processAlive reports whether the process pid still runs: it exists (kill
// -0) and, where /proc tells, is not a zombie. (A killed program whose
// parent has gone waits as a zombie until PID 1 reaps it, which in a
// container may be never; kill -0 still finds it.)
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and ')'.
	i := bytes.LastIndexByte(st, ')')
	return i < 0 || !bytes.HasPrefix(st[i+1:], []byte(" Z"))
}

// killProcess kills the process pid (SIGKILL).
func killProcess(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// processCPU is the CPU time (user and system) this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
