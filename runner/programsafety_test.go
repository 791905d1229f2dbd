package runner

import (
	"strings"
	"testing"

	"github.com/autocoder/autocoder/config"
)

// An allowed program must not be able to widen its own permission: run or
// write something other than what the allow entry names.
func TestProgramArgumentsCannotWidenTheAllowEntry(t *testing.T) {
	on := config.Default()
	on.Programs.Enabled = true
	on.Programs.Allow = []string{"go test", "git status", "git diff", "git log", "git fetch", "go vet -vettool=/usr/bin/myvet"}
	cases := []struct {
		command string
		args    []string
		want    bool
		reason  string
	}{
		{"go test -exec ./evil.sh ./...", nil, false, "-exec"},
		{"go test -exec=./evil.sh ./...", nil, false, "-exec"},
		{"go test --exec=./evil.sh", nil, false, "-exec"},
		{"go", []string{"test", "-toolexec", "./x"}, false, "-toolexec"},
		{"go test -o /tmp/x", nil, false, "-o"},
		{"go test -C /tmp", nil, false, "-C"},
		{"go test -coverprofile=/etc/x", nil, false, "-coverprofile"},
		{"go test -modfile=evil.mod", nil, false, "-modfile"},
		{"go test -overlay=o.json", nil, false, "-overlay"},
		{"git -c core.fsmonitor=./x status", nil, false, "-c"},
		{"git status -c x", nil, false, "-c"},
		{"git", []string{"status", "--config-env=core.pager=X"}, false, "--config-env"},
		{"git diff --output=/tmp/x", nil, false, "--output"},
		{"git diff --ext-diff", nil, false, "--ext-diff"},
		{"git log -O", nil, false, "-O"},
		{"git fetch --upload-pack=./evil", nil, false, "--upload-pack"},
		{"git fetch --upload-pack ./evil", nil, false, "--upload-pack"},
		{"git status --exec-path=/tmp", nil, false, "--exec-path"},
		{"git status --git-dir=/tmp/other", nil, false, "--git-dir"},
		{"git status --work-tree=/", nil, false, "--work-tree"},
		{"go test *", nil, false, "glob"},
		{"go test ./?", nil, false, "glob"},
		{"go test ~/x", nil, false, "tilde"},
		{"go test {a,b}", nil, false, "brace"},
		// What the entries allow stays allowed.
		{"go test ./... -run TestX -count=1 -v", nil, true, `"go test"`},
		{"go", []string{"test", "*"}, true, `"go test"`}, // no shell: * is a plain word
		{"git status --short", nil, true, `"git status"`},
		{"git diff --stat HEAD", nil, true, `"git diff"`},
		{"go vet -vettool=/usr/bin/myvet ./...", nil, true, "go vet -vettool"},
	}
	for _, tc := range cases {
		got, reason := programAllowed(on, tc.command, tc.args, false)
		if got != tc.want || !strings.Contains(reason, tc.reason) {
			t.Errorf("ProgramAllowed(%q, %q) = %v (%s), want %v saying %q", tc.command, tc.args, got, reason, tc.want, tc.reason)
		}
	}
}

func TestProgramEnvironmentIsAnAllowList(t *testing.T) {
	c := config.Default()
	for _, env := range []map[string]string{
		{"PATH": "tools:/usr/bin"},
		{"LD_PRELOAD": "./x.so"},
		{"LD_LIBRARY_PATH": "."},
		{"DYLD_INSERT_LIBRARIES": "x"},
		{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "./x"},
		{"GIT_DIR": "/tmp"},
		{"GOFLAGS": "-exec=./x"},
		{"GOTOOLCHAIN": "local"},
		{"BASH_ENV": "./x"},
		{"NODE_OPTIONS": "--require ./x"},
		{"SOME_UNKNOWN_KEY": "1"},
		{"path": "tools"},
	} {
		ok, why := envAllowed(c, env)
		if ok || !strings.Contains(why, "env") {
			t.Errorf("env %v: allowed %v (%s); want refused, saying why", env, ok, why)
		}
	}
	for _, env := range []map[string]string{nil, {"CI": "1"}, {"NODE_ENV": "test", "RUST_BACKTRACE": "1", "LC_ALL": "C"}} {
		if ok, why := envAllowed(c, env); !ok {
			t.Errorf("env %v refused: %s", env, why)
		}
	}
	// The configuration may add a key, but never one that changes what runs.
	c.Programs.Env = append(c.Programs.Env, "MY_FLAG", "PATH")
	if ok, why := envAllowed(c, map[string]string{"MY_FLAG": "1"}); !ok {
		t.Errorf("a configured key is refused: %s", why)
	}
	if ok, _ := envAllowed(c, map[string]string{"PATH": "x"}); ok {
		t.Error("PATH is allowed because the configuration lists it")
	}
}
