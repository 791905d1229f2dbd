//go:build unix

package main

import "syscall"

// processAlive reports whether the process pid still exists (kill -0).
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// killProcess kills the process pid (SIGKILL).
func killProcess(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
