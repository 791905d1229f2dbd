package pathpolicy

import (
	"io/fs"
	"os"

	"github.com/autocoder/autocoder/gitops/gitpath"
)

// FS is the repository as reads, listings and searches see it: rooted at
// the root with os.Root, so that no name, however it was checked, opens a
// file outside (a symlink that leaves fails in the kernel's walk, not only
// in Resolve); every name opened passes ResolveRead; and a folder's
// entries leave out what the policy refuses (.git in any spelling, denied
// paths), so a listing or a search never shows them. A folder that is
// another repository's work tree is shown but cannot be read into.
func (p *Policy) FS() (fs.FS, error) {
	p.once.Do(func() { p.root, p.err = os.OpenRoot(p.Root) })
	if p.err != nil {
		return nil, p.err
	}
	return policyFS{p: p, fsys: p.root.FS()}, nil
}

// Close releases the root FS opened.
func (p *Policy) Close() error {
	if p.root != nil {
		return p.root.Close()
	}
	return nil
}

type policyFS struct {
	p    *Policy
	fsys fs.FS
}

func (f policyFS) check(op, name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if _, err := f.p.ResolveRead(name); err != nil {
		return err
	}
	return nil
}

func (f policyFS) Open(name string) (fs.File, error) {
	if err := f.check("open", name); err != nil {
		return nil, err
	}
	file, err := f.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := file.(fs.ReadDirFile); ok {
		return policyDir{ReadDirFile: d, f: f, name: name}, nil
	}
	return file, nil
}

func (f policyFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.check("stat", name); err != nil {
		return nil, err
	}
	return fs.Stat(f.fsys, name)
}

func (f policyFS) ReadFile(name string) ([]byte, error) {
	if err := f.check("read", name); err != nil {
		return nil, err
	}
	return fs.ReadFile(f.fsys, name)
}

func (f policyFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.check("readdir", name); err != nil {
		return nil, err
	}
	ents, err := fs.ReadDir(f.fsys, name)
	return f.filter(name, ents), err
}

// filter drops the entries the policy refuses. Entries that are symlinks
// are kept: walkers do not follow them, and reading one goes through
// ResolveRead.
func (f policyFS) filter(dir string, ents []fs.DirEntry) []fs.DirEntry {
	out := ents[:0]
	for _, e := range ents {
		rel := e.Name()
		if dir != "." {
			rel = dir + "/" + rel
		}
		if gitpath.IsDotGit(e.Name()) || !ControlFree(e.Name()) {
			continue
		}
		if f.p.Deny != nil {
			if _, denied := f.p.Deny(rel); denied {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

type policyDir struct {
	fs.ReadDirFile
	f    policyFS
	name string
}

func (d policyDir) ReadDir(n int) ([]fs.DirEntry, error) {
	ents, err := d.ReadDirFile.ReadDir(n)
	return d.f.filter(d.name, ents), err
}

// ControlFree reports whether s holds no control character (see IsControl).
func ControlFree(s string) bool {
	for _, r := range s {
		if IsControl(r) {
			return false
		}
	}
	return true
}
