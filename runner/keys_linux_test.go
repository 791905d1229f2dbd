package runner

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/step"
	"golang.org/x/sys/unix"
)

// withdrawKeys, which runs before the engine opens, takes the key out of
// autocoder's environment (a program then inherits none) and makes
// autocoder not dumpable: a program reads the key in its parent's
// environment instead (tr '\0' '\n' < /proc/$PPID/environ) unless
// autocoder's /proc files are root's, and refused to the user's programs
// (root itself, which may read any process's, cannot be kept out). run
// still reads the key with APIKey.
func TestWithdrawKeysSealsTheEnviron(t *testing.T) {
	const name = "AUTOCODER_TEST_WITHDRAWN_KEY"
	t.Setenv(name, "sk-secret-withdrawn")
	t.Cleanup(func() { withdrawnKeys.Delete(name) })
	cfg := config.Default()
	cfg.Model.APIKeyEnv = name
	withdrawKeys(config.Settings{Config: cfg})
	if v, ok := os.LookupEnv(name); ok {
		t.Errorf("%s is still in autocoder's environment: %q", name, v)
	}
	if got := APIKey(name); got != "sk-secret-withdrawn" {
		t.Errorf("APIKey(%s) = %q, want the withdrawn value", name, got)
	}
	r := (&Policy{cfg: cfg, allowAll: true}).Run(context.Background(), t.TempDir(),
		step.Program{Name: "p", Command: "echo key=[$" + name + "]", Shell: true})
	if r.Status != "success" || strings.TrimSpace(r.Stdout) != "key=[]" {
		t.Fatalf("program: %+v", r)
	}
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
		t.Errorf("after withdrawKeys: dumpable %d, %v; want 0: a program of the same user reads the API key in /proc/PPID/environ", d, err)
	}
}
