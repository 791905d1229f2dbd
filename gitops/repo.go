package gitops

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/go-git/gcfg"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Repo is an open repository: its worktree root, its git directories and
// its object store. A linked worktree (git worktree add) has its own GitDir
// (HEAD, index) and shares CommonDir (objects, refs, config).
type Repo struct {
	Root      string // the worktree's top folder
	GitDir    string // per-worktree: HEAD, index, our journal
	CommonDir string // shared: objects, refs, packed-refs, config
	objects   *filesystem.ObjectStorage
	storage   *filesystem.Storage
	packDir   os.FileInfo // objects/pack as open saw it (see Refresh)
	// format is the stat of the config file checkFormat last found
	// acceptable (nil: none yet, or absent), for Refresh.
	format os.FileInfo
	// packs finds packed objects without go-git's decoding of every pack
	// index (packs.go); alternates is set when objects/info/alternates
	// names other object folders, which go-git searches.
	packs      *packSet
	alternates bool

	attrsMu sync.Mutex
	attrs   *Attributes // see Attributes
	// cfg is the last read of git's configuration (config.go), kept
	// while the files it read are unchanged. In a long-lived process that
	// calls Refresh before each use (cfgPerUse), that is looked at once
	// per use (cfgChecked: since the last Refresh; never set otherwise).
	cfgMu      sync.Mutex
	cfg        *configState
	cfgPerUse  bool
	cfgChecked bool
	// spares, when set, gives the files written under .git (see spare.go).
	spares *Spares
	trees  treeCache // see ReadTree
	// folders, when set, lists a folder's entries as the index holds
	// them (see readTreeAt).
	folders func(dir string) ([]TreeEntry, bool)
	// wrote is the commit this Repo wrote last, with its tree (CommitTree).
	wroteMu          sync.Mutex
	wrote, wroteTree Hash
	// ignore is the git check-ignore kept for the Repo's life (Ignored).
	ignoreMu sync.Mutex
	ignore   *ignoreChecker
	// ident is the identity Identity resolved last, with what it depends
	// on (identityKey).
	identMu sync.Mutex
	keptID  *keptIdentity
	// pending are the objects written or reused since a ref last moved,
	// kept until one does (gc.go).
	pendMu  sync.Mutex
	pending []pendingObject
	// behind writes the objects WriteObject names while WriteBehind is on,
	// or is nil.
	behind *behindWriter
}

// UnsupportedError is a repository that autocoder refuses rather than risk
// corrupting it.
type UnsupportedError struct {
	What string
	Why  string
	Fix  string // what to do, when there is more to say than "use a plain clone"
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("unsupported repository: %s: %s", e.What, e.Why)
}

// Hint says what to do.
func (e *UnsupportedError) Hint() string {
	if e.Fix != "" {
		return e.Fix
	}
	return "autocoder writes git's files itself and supports only what it can write correctly; use a plain clone (sha1 objects, files refs, full index) for this work"
}

// NotRepoError is a folder that is not inside a git worktree.
type NotRepoError struct{ Dir string }

func (e *NotRepoError) Error() string {
	return fmt.Sprintf("not a git repository (or any parent up to /): %s", e.Dir)
}

// Hint says what to do.
func (e *NotRepoError) Hint() string {
	return "run autocoder inside a git repository, or create one with `git init`"
}

// Open finds the repository that contains dir (walking up like git does)
// and opens its object store.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		if err == nil {
			r := &Repo{Root: d}
			if fi.IsDir() {
				r.GitDir = dotgit
			} else if r.GitDir, err = readGitFile(dotgit); err != nil {
				return nil, err
			}
			if err := r.open(); err != nil {
				return nil, err
			}
			return r, nil
		}
		if d == filepath.Dir(d) {
			return nil, &NotRepoError{Dir: abs}
		}
	}
}

// readGitFile reads a ".git" file ("gitdir: <path>"), as a linked worktree
// or a submodule has.
func readGitFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return "", fmt.Errorf("read %s: not a gitdir file", p)
	}
	gd := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(p), gd)
	}
	return filepath.Clean(gd), nil
}

func (r *Repo) open() error {
	r.CommonDir = r.GitDir
	if b, err := os.ReadFile(filepath.Join(r.GitDir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(b))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(r.GitDir, cd)
		}
		r.CommonDir = filepath.Clean(cd)
	}
	if err := r.checkFormat(); err != nil {
		return err
	}
	if err := r.checkObjectLinks(); err != nil {
		return err
	}
	if err := r.checkAlternates(); err != nil {
		return err
	}
	r.reopen()
	return nil
}

// checkAlternates reads objects/info/alternates (git clone --shared,
// --reference): the object folders of other repositories that this one
// reads objects from. go-git reads them (reopen gives it the whole file
// system for them) when each is an absolute path to a folder; a relative
// entry (git reads it from the objects folder, go-git cannot) or one that
// is not a folder is refused here, naming it, rather than failing later
// with "object not found".
func (r *Repo) checkAlternates() error {
	p := filepath.Join(r.CommonDir, "objects", "info", "alternates")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil // none (or unreadable, which git also ignores)
	}
	shown := p
	if rel, ok := r.Rel(p); ok {
		shown = rel
	}
	for _, line := range strings.Split(string(b), "\n") {
		entry := strings.TrimSpace(line)
		if entry == "" || strings.HasPrefix(entry, "#") {
			continue
		}
		why := ""
		if !filepath.IsAbs(entry) {
			why = "autocoder reads only alternates written as absolute paths (as git clone --shared and --reference write them)"
		} else if fi, err := os.Stat(entry); err != nil || !fi.IsDir() {
			why = "it is not a folder autocoder can read"
		}
		if why != "" {
			return &UnsupportedError{What: fmt.Sprintf("the alternates entry %q of %s", entry, shown), Why: why,
				Fix: fmt.Sprintf("write the entry as the absolute path of an existing objects folder, or copy the objects in and drop the file: git repack -a -d && rm %s", shown)}
		}
	}
	return nil
}

// FormatStill checks the repository's format again (checkFormat: Open's
// refusals) where .git/config changed since it was last checked (git refs
// migrate, git config core.bare): a stat per use. Refresh does it for a
// session's call; an engine kept across the answers of `autocoder run`
// does it at each answer.
func (r *Repo) FormatStill() error {
	if sameStat(r.format, filepath.Join(r.CommonDir, "config")) {
		return nil
	}
	return r.checkFormat()
}

// Refresh reopens the object store when git wrote or removed packs since it
// was opened (git gc, fetch, repack): go-git reads the list of packs once,
// and keeps the files open. A long-lived process calls it before each use.
// From the first Refresh on, the configuration is looked at again once per
// use (the first question after a Refresh), not at each question: a
// session's call asked it a dozen times, each a look at five files, and
// the whole read again while a file was written just before (see racy).
// A repository format Open would refuse (checkFormat), set since, is
// refused here: Refresh's error.
func (r *Repo) Refresh() error {
	r.cfgMu.Lock()
	r.cfgPerUse = true
	r.cfgMu.Unlock()
	r.ConfigMayHaveChanged()
	if err := r.FormatStill(); err != nil {
		return err
	}
	fi, _ := os.Stat(filepath.Join(r.CommonDir, "objects", "pack"))
	if fi == nil || (r.packDir != nil && fi.ModTime().Equal(r.packDir.ModTime()) && fi.Size() == r.packDir.Size()) {
		return nil
	}
	r.reopen()
	return nil
}

// ConfigMayHaveChanged has the configuration looked at again at its next
// question, where a long-lived process looks at it once per use (see
// Refresh): a program a step ran may have changed it (git config,
// git submodule add) before the next step of the same use.
func (r *Repo) ConfigMayHaveChanged() {
	r.cfgMu.Lock()
	r.cfgChecked = false
	r.cfgMu.Unlock()
}

// reopen closes the object store and opens it again, reading the list of
// packs afresh: after Refresh saw objects/pack change, or when an object
// that must exist was not found (a git gc moved it into a new pack within
// the same second, where Refresh's look at the folder may not tell).
func (r *Repo) reopen() {
	if r.storage != nil {
		r.storage.Close()
	}
	if r.packs != nil {
		r.packs.close()
	}
	packDir := filepath.Join(r.CommonDir, "objects", "pack")
	r.packDir, _ = os.Stat(packDir)
	// Alternates (checkAlternates) are absolute paths: go-git reads them
	// through a file system rooted at the volume's root.
	root := filepath.VolumeName(r.CommonDir) + string(filepath.Separator)
	objCache := cache.NewObjectLRUDefault()
	r.storage = filesystem.NewStorageWithOptions(osfs.New(r.CommonDir), objCache,
		filesystem.Options{KeepDescriptors: true, AlternatesFS: osfs.New(root)})
	r.objects = &r.storage.ObjectStorage
	r.packs = newPackSet(packDir, objCache)
	_, err := os.Stat(filepath.Join(r.CommonDir, "objects", "info", "alternates"))
	r.alternates = err == nil
}

// checkObjectLinks refuses an object store reached through a symbolic
// link out of the git folder (.git/objects -> /elsewhere/objects): go-git,
// which reads the objects, sees the git folder through a file system rooted
// there that does not follow a link out of it, and every read would fail
// with "chroot boundary crossed". git itself follows such a link, so the
// hint says how to make the folder a plain one again.
func (r *Repo) checkObjectLinks() error {
	for _, name := range []string{"objects", filepath.Join("objects", "pack")} {
		p := filepath.Join(r.CommonDir, name)
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, err := os.Readlink(p)
		if err != nil {
			return fmt.Errorf("read the link %s: %w", p, err)
		}
		abs := target
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(filepath.Dir(p), abs)
		}
		if rel, err := filepath.Rel(r.CommonDir, filepath.Clean(abs)); err == nil &&
			rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // a link inside the git folder, which go-git follows
		}
		shown := p
		if rel, ok := r.Rel(p); ok {
			shown = rel
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			abs = real
		}
		return &UnsupportedError{
			What: shown + " is a symbolic link to " + target,
			Why:  "autocoder reads objects only inside the git folder, and does not follow a link out of it",
			Fix: fmt.Sprintf("make it a plain folder again (git works the same after): rm %s && cp -a %s %s",
				shown, abs, shown),
		}
	}
	return nil
}

// checkFormat refuses repository formats we cannot write correctly: other
// object formats than sha1, the reftable ref store, extensions we do not
// know, and a repository git calls bare (core.bare read as git reads a
// boolean: a key without "=" is true). (go-git itself refuses worktreeConfig and partialClone through a
// key-case bug; we read the config ourselves and accept those two, which do
// not change any file we write.)
func (r *Repo) checkFormat() (err error) {
	p := filepath.Join(r.CommonDir, "config")
	r.format = nil
	fi, _ := os.Stat(p) // before the read: a file written during it differs
	defer func() {
		if err == nil {
			r.format = fi
		}
	}()
	b, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	// core.bare as git's check_repo_format reads it: the last one, a
	// boolean (a key without "=" is true).
	var bare, bareValueless, bareSet bool
	var bareValue string
	var refused error
	err = gcfg.ReadWithCallback(bytes.NewReader(b), func(s, ss, k, v string, blank bool) error {
		if ss != "" || k == "" || refused != nil {
			return nil
		}
		switch strings.ToLower(s) {
		case "core":
			if strings.EqualFold(k, "bare") {
				bareSet, bareValue, bareValueless = true, v, blank
			}
		case "extensions":
			refused = unsupportedExtension(k, v)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if refused != nil {
		return refused
	}
	if bareSet {
		on, ok := parseBool(bareValue, bareValueless)
		if !ok {
			return &UnsupportedError{What: "core.bare = " + bareValue, Why: "not a boolean: git refuses the repository too",
				Fix: "set it to what the repository is: git config core.bare false"}
		}
		bare = on
	}
	if bare {
		return &UnsupportedError{What: "bare repository", Why: "there is no worktree to write files into"}
	}
	return nil
}

// unsupportedExtension refuses an extension (extensions.<key> = v) we
// cannot write correctly.
func unsupportedExtension(key, v string) error {
	val := strings.ToLower(v)
	switch strings.ToLower(key) {
	case "objectformat":
		if val != "sha1" {
			return &UnsupportedError{What: "extensions.objectFormat = " + v, Why: "autocoder writes sha1 objects only"}
		}
	case "refstorage":
		if val != "files" {
			return &UnsupportedError{What: "extensions.refStorage = " + v, Why: "autocoder writes loose refs and reflogs only"}
		}
	case "worktreeconfig", "partialclone", "preciousobjects", "noop":
	default:
		return &UnsupportedError{What: "extensions." + key, Why: "an extension autocoder does not know"}
	}
	return nil
}

// Close releases the object store's open files and stops the git
// check-ignore that Ignored kept.
func (r *Repo) Close() error {
	r.ObjectsWritten()
	r.ForgetIgnores()
	if r.packs != nil {
		r.packs.close()
	}
	if r.storage != nil {
		return r.storage.Close()
	}
	return nil
}

// Rel turns an absolute path inside Root into a slash-separated path
// relative to Root; ok is false when abs is outside.
func (r *Repo) Rel(abs string) (string, bool) {
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Abs is the absolute file system path of a repository-relative path.
func (r *Repo) Abs(rel string) string { return filepath.Join(r.Root, filepath.FromSlash(rel)) }

// TrustsExecutableBit reports whether the work tree's executable bit
// counts, as git decides it: core.fileMode, except on Windows, where the
// file system has no such bit (git for Windows writes core.fileMode=false
// into every repository it makes, for this reason). Where it does not
// count, a file keeps the mode its index entry has.
func (r *Repo) TrustsExecutableBit() bool {
	on, ok := r.ConfigBool("core", "fileMode")
	return runtime.GOOS != "windows" && (on || !ok)
}

// ConfigValue is the value of one key ("core", "fileMode") of git's
// configuration as git reads it (every file, includes; see config.go),
// "" when it is unset.
func (r *Repo) ConfigValue(section, key string) string {
	return r.configValue(section + "." + key)
}

// ConfigBool is one boolean key ("core", "fileMode") of git's
// configuration as git reads it (git_config_bool: a key without "=" is
// true, an empty value false; see parseBool). ok is false where the key
// is unset or its value is none git reads as a boolean: git refuses such
// a value for a setting it needs, and ignores it for one that only tunes
// (core.splitIndex), as the caller decides.
func (r *Repo) ConfigBool(section, key string) (on, ok bool) {
	return r.config().boolean(r, configKey(section+"."+key))
}
