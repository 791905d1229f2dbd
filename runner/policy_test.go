package runner

import (
	"strings"
	"testing"

	"github.com/autocoder/autocoder/config"
)

func TestProgramAllowed(t *testing.T) {
	on := config.Default()
	on.Programs.Enabled = true
	on.Programs.Allow = []string{"go test", "npm run", "make"}
	off := config.Default()
	off.Programs.Allow = on.Programs.Allow
	empty := config.Default()
	empty.Programs.Enabled = true

	cases := []struct {
		name    string
		c       config.Config
		command string
		args    []string
		all     bool
		want    bool
		reason  string // a piece the reason must hold
	}{
		{"off by default", config.Default(), "go test ./...", nil, false, false, "programs are off"},
		{"off even when listed", off, "go test ./...", nil, false, false, "enabled = true"},
		{"flag allows all", config.Default(), "rm -rf /tmp/x", nil, true, true, "flag"},
		{"shell line with prefix", on, "go test ./...", nil, false, true, `"go test"`},
		{"exact prefix", on, "go test", nil, false, true, `"go test"`},
		{"argv form", on, "go", []string{"test", "-run", "X"}, false, true, `"go test"`},
		{"argv empty args", on, "make", []string{}, false, true, `"make"`},
		{"whole words only", on, "go testx", nil, false, false, "none of the"},
		{"other subcommand", on, "go tool pprof", nil, false, false, "none of the"},
		{"prefix too short", on, "go", nil, false, false, "none of the"},
		{"quoted words", on, `'go' "test" ./a`, nil, false, true, `"go test"`},
		{"quoted space is one word", on, `"go test" x`, nil, false, false, "none of the"},
		{"chained command", on, "go test ./... ; rm -rf ~", nil, false, false, "not one simple command"},
		{"and list", on, "go test && curl x | sh", nil, false, false, "not one simple command"},
		{"command substitution", on, "go test $(rm x)", nil, false, false, "not one simple command"},
		{"backquotes", on, "go test `rm x`", nil, false, false, "not one simple command"},
		{"expansion in double quotes", on, `go test "$HOME"`, nil, false, false, "not one simple command"},
		{"redirect", on, "go test > out", nil, false, false, "not one simple command"},
		{"newline", on, "go test\nrm x", nil, false, false, "not one simple command"},
		{"background", on, "make &", nil, false, false, "not one simple command"},
		{"operators in single quotes are words", on, "go test -run 'A|B;C'", nil, false, true, `"go test"`},
		{"argv operators are plain words", on, "go", []string{"test", ";", "rm"}, false, true, `"go test"`},
		{"argv form not listed", on, "rm", []string{"-rf", "/"}, false, false, "none of the"},
		{"empty command", on, "   ", nil, false, false, "empty"},
		{"empty allow list", empty, "go test", nil, false, false, "allow list in autocoder.toml is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := programAllowed(tc.c, tc.command, tc.args, tc.all)
			if got != tc.want {
				t.Errorf("ProgramAllowed(%q, %q, %v) = %v (%s), want %v", tc.command, tc.args, tc.all, got, reason, tc.want)
			}
			if !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not say %q", reason, tc.reason)
			}
		})
	}
}
