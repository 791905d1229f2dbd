package runner

import "golang.org/x/sys/unix"

// sealEnviron keeps programs from reading the API key where withdrawKeys
// cannot reach: autocoder's own environment, which a program of the same
// user reads in /proc/PPID/environ (or /proc/PID/mem). A process that is
// not dumpable has its /proc files owned by root and refused to others, as
// ssh-agent does; the programs it starts are dumpable again (execve).
func sealEnviron() { unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
