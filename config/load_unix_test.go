//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An autocoder.toml that is not a regular file is refused, not read: a
// repository that commits it as a symlink to /dev/zero made every command
// read until it ran out of memory, and a named pipe (a program left it)
// was waited on forever. A symlink to a regular file is refused too: a
// committed autocoder.toml that links to ~/.netrc had a line of it (a
// password) quoted in the error, which an MCP client passes to the model.
func TestLoadRefusesWhatIsNoFile(t *testing.T) {
	for name, mk := range map[string]func(p string) error{
		"device": func(p string) error { return os.Symlink("/dev/null", p) },
		"pipe":   func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, FileName)
			if err := mk(p); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := Load(root, Dirs{}); done <- err }()
			select {
			case err := <-done:
				var ce *Error
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not a regular file") && !strings.Contains(err.Error(), "symbolic link") || ce.Fix == "" {
					t.Errorf("Load: %v", err)
				}
			case <-time.After(10 * time.Second):
				if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatal("Load hung")
			}
		})
	}
	root := t.TempDir()
	netrc := filepath.Join(t.TempDir(), ".netrc")
	if err := os.WriteFile(netrc, []byte("machine example.com login me password hunter2secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(netrc, filepath.Join(root, FileName)); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root, Dirs{})
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "symbolic link") || ce.Fix == "" || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a symlink to a file: %v", err)
	}
}
