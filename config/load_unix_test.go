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
// was waited on forever. A symlink to a regular file is read as before.
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
			go func() { _, err := Load(root); done <- err }()
			select {
			case err := <-done:
				var ce *Error
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not a regular file") || ce.Fix == "" {
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
	if err := os.WriteFile(filepath.Join(root, "shared.toml"), []byte("[programs]\nenabled = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared.toml", filepath.Join(root, FileName)); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(root); err != nil || !c.Programs.Enabled {
		t.Errorf("a symlink to a file: %v, %+v", err, c.Programs)
	}
}
