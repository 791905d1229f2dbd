package main

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// roomForHeap reports whether the memory this process may use leaves room
// for a heap of oneShotMemoryLimit with the collector off (main): twice
// as much, for the files a step maps, the git processes and programs a
// step starts in the same group, and the runtime's own. A container or a
// systemd unit limited below that keeps the collector on, as before: off,
// a one-shot apply of a large response grew to the limit (1 GiB, where
// the collector kept it near 160 MB) and the kernel killed it mid-step.
// root is "/" (a folder in the tests).
func roomForHeap(root string) bool {
	limit, ok := cgroupMemoryLimit(root)
	return !ok || limit >= 2*oneShotMemoryLimit
}

// cgroupMemoryLimit is the smallest memory limit of the control groups
// this process is in, along each group's path up to the top of its mount:
// memory.max (cgroup v2) and memory.limit_in_bytes (v1). ok is false when
// there is none, or where there are no control groups (not Linux).
func cgroupMemoryLimit(root string) (limit int64, ok bool) {
	b, err := os.ReadFile(filepath.Join(root, "proc", "self", "cgroup"))
	if err != nil {
		return 0, false
	}
	sys := filepath.Join(root, "sys", "fs", "cgroup")
	for _, line := range strings.Split(string(b), "\n") {
		// hierarchy-ID:controllers:path; v2's is 0::path.
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var mounts []string
		var file string
		switch {
		case f[0] == "0" && f[1] == "":
			mounts, file = []string{sys, filepath.Join(sys, "unified")}, "memory.max"
		case hasController(f[1], "memory"):
			mounts, file = []string{filepath.Join(sys, "memory"), filepath.Join(sys, f[1])}, "memory.limit_in_bytes"
		default:
			continue
		}
		// Inside a container the group's path may name the host's
		// folders above the mount: each level that exists counts.
		for _, m := range mounts {
			for p := path.Clean("/" + f[2]); ; p = path.Dir(p) {
				if v, err := os.ReadFile(filepath.Join(m, filepath.FromSlash(p), file)); err == nil {
					s := strings.TrimSpace(string(v))
					// "max", or v1's "unlimited" (a page-rounded 2^63-1).
					if n, err := strconv.ParseInt(s, 10, 64); err == nil && n < 1<<60 && (!ok || n < limit) {
						limit, ok = n, true
					}
				}
				if p == "/" {
					break
				}
			}
		}
	}
	return limit, ok
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
