package config

import (
	"os"
	"path/filepath"

	"github.com/autocoder/autocoder/step"
)

// UserDir is autocoder's folder in the user's configuration folder, where
// the user's own files live (the MCP server's token, the repositories the
// browser bridge may act on): $XDG_CONFIG_HOME/autocoder when that variable
// is set, on every system (the user asked for it), else the platform's
// configuration folder (os.UserConfigDir: ~/.config on Linux,
// ~/Library/Application Support on macOS, %AppData% on Windows). It is not
// created here: whoever writes into it creates it, owner-only.
func UserDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "autocoder"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", &step.Error{C: step.ClassUsage, Msg: "cannot find your configuration folder", Err: err,
			Fix: "set XDG_CONFIG_HOME (or HOME) to a folder of yours"}
	}
	return filepath.Join(d, "autocoder"), nil
}

// WriteUserFile writes data to path, a file of the user's folder, readable
// and writable by its owner only (0600, in a folder made 0700): the file is
// written whole under a temporary name first, so no reader ever sees half
// of it. With replace false an existing file is kept and fs.ErrExist
// returned (two processes making the same file at once: one wins, and the
// other reads the winner's).
func WriteUserFile(path string, data []byte, replace bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*") // 0600
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if replace {
		return os.Rename(tmp, path)
	}
	return os.Link(tmp, path) // fails with fs.ErrExist when the file is there
}

// ReadUserFile reads path, a file of the user's folder that decides what
// autocoder may do, refusing one that is not a plain file (a symlink may
// point anywhere) or, on systems with permission bits, one that others may
// write (and, for a secret, read): another account could then choose what
// it says.
func ReadUserFile(path string, secret bool) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &step.Error{C: step.ClassRefused, Msg: path + " is not a plain file",
			Fix: "remove it; autocoder makes it again where needed"}
	}
	if err := checkOwnerOnly(path, fi, secret); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
