package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A one-shot command turns the collector off only where its heap may grow
// to oneShotMemoryLimit: a control group limited below twice that (a
// container, a systemd unit), in cgroup v2 or v1, at the group or at a
// folder above it, keeps the collector on (roomForHeap).
func TestOneShotCommandsKeepTheCollectorInASmallControlGroup(t *testing.T) {
	t.Parallel()
	type tree map[string]string // file under the root: content
	for _, c := range []struct {
		name string
		tree tree
		room bool
	}{
		{"no control groups (not Linux)", tree{}, true},
		{"v2, no limit", tree{"proc/self/cgroup": "0::/user.slice/x.scope\n", "sys/fs/cgroup/user.slice/x.scope/memory.max": "max\n"}, true},
		{"v2, 512 MiB", tree{"proc/self/cgroup": "0::/user.slice/x.scope\n", "sys/fs/cgroup/user.slice/x.scope/memory.max": "536870912\n"}, false},
		{"v2, 512 MiB above the group", tree{"proc/self/cgroup": "0::/user.slice/x.scope\n",
			"sys/fs/cgroup/user.slice/memory.max": "536870912\n", "sys/fs/cgroup/user.slice/x.scope/memory.max": "max\n"}, false},
		{"v2, 4 GiB", tree{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "4294967296\n"}, true},
		{"v1 container, its group mounted at the top", tree{"proc/self/cgroup": "4:memory:/docker/abc\n0::/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824\n"}, false},
		{"v1, unlimited", tree{"proc/self/cgroup": "4:memory:/process_api/x\n0::/\n",
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "9223372036854771712\n"}, true},
		{"v1, memory with another controller", tree{"proc/self/cgroup": "4:cpu,memory:/a\n",
			"sys/fs/cgroup/memory/a/memory.limit_in_bytes": "268435456\n"}, false},
	} {
		root := t.TempDir()
		for name, content := range c.tree {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		if got := roomForHeap(root); got != c.room {
			t.Errorf("%s: roomForHeap = %v, want %v", c.name, got, c.room)
		}
	}
}
