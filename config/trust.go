package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Dirs are the user's own folders: Config holds the user-level file
// (autocoder/config.toml), State the trust records (autocoder/trusted/).
// Tests give their own; the commands use UserDirs.
type Dirs struct {
	Config string // "": no user-level file
	State  string // "": nothing is trusted, and trust cannot be recorded
}

// UserDirs returns the user's folders: on Linux and the other Unix systems
// $XDG_CONFIG_HOME (else ~/.config) and $XDG_STATE_HOME (else
// ~/.local/state); on macOS ~/Library/Application Support for both; on
// Windows %AppData% and %LocalAppData%. A folder that cannot be found is
// left empty.
func UserDirs() Dirs {
	var d Dirs
	if c, err := os.UserConfigDir(); err == nil {
		d.Config = c
	}
	switch runtime.GOOS {
	case "darwin":
		d.State = d.Config
	case "windows":
		if c, err := os.UserCacheDir(); err == nil {
			d.State = c // %LocalAppData%: this machine's, not roamed
		}
	default:
		if s := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(s) {
			d.State = s
		} else if h, err := os.UserHomeDir(); err == nil {
			d.State = filepath.Join(h, ".local", "state")
		}
	}
	return d
}

// UserFile is the user-level configuration file, or "".
func (d Dirs) UserFile() string {
	if d.Config == "" {
		return ""
	}
	return filepath.Join(d.Config, "autocoder", "config.toml")
}

// record is the trust record of the file at path: one file per trusted
// path, named by the hash of the path, holding the path and the SHA-256 of
// the content trusted (as direnv keeps its allow list). One file each
// means two trusts at once never lose one another's record.
func (d Dirs) record(path string) string {
	if d.State == "" {
		return ""
	}
	h := sha256.Sum256([]byte(path))
	return filepath.Join(d.State, "autocoder", "trusted", hex.EncodeToString(h[:16]))
}

// PolicyFiles are the files besides the repository's autocoder.toml whose
// change changes what the repository at root may do: the user's own file
// and the trust record of root's autocoder.toml. A session that keeps a
// policy reads it again when one of them changed (autocoder untrust holds
// from the next call on).
func (d Dirs) PolicyFiles(root string) []string {
	var out []string
	for _, p := range []string{d.UserFile(), d.TrustRecord(root)} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// TrustRecord is the trust record of the repository at root's
// autocoder.toml (see record), or "" where there is no state folder.
func (d Dirs) TrustRecord(root string) string { return d.record(filepath.Join(root, FileName)) }

// Sum is the SHA-256 of a file's content, in hex: what trust records.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// trusted reports whether the user trusted the file at path with exactly
// this content.
func (d Dirs) trusted(path string, data []byte) bool {
	rec := d.record(path)
	if rec == "" {
		return false
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		return false
	}
	p, sum, ok := strings.Cut(strings.TrimSuffix(string(b), "\n"), "\n")
	return ok && p == path && sum == Sum(data)
}

// Settings is the configuration in effect for one repository, and where it
// came from.
type Settings struct {
	Config           // in effect
	UserFile  string // the user-level file read, "" when there is none
	RepoFile  string // the repository's file, "" when there is none
	RepoSum   string // the SHA-256 of the repository's file as read
	Trusted   bool   // the repository's file is trusted with this content
	RepoSets  []Setting
	Ignored   []Setting // the repository's settings not in effect until it is trusted
	IfTrusted Config    // the configuration trusting the repository's file would give
}

// Load reads the configuration for the repository at root: the defaults,
// then the user's own file (Dirs.UserFile), then the repository's
// autocoder.toml. The user's file counts whole. The repository's counts
// whole only when the user trusted it with this exact content (Trust);
// until then its keys count by their Kind: what restricts narrows, what
// chooses counts, what widens (programs, verify, the model's URL and key
// variable) is ignored and listed in Settings.Ignored.
//
// Keys a file leaves out keep their value. Unknown keys (also keys in the
// wrong letter case: TOML keys are case sensitive) and bad values are
// errors of type *Error naming the file, the key and its line, and what to
// write; every problem in a file is reported, joined with errors.Join.
// Neither file is ever read through a symlink of the repository's, and no
// error quotes a file's lines.
func Load(root string, dirs Dirs) (Settings, error) {
	s := Settings{Config: Default()}
	if name := dirs.UserFile(); name != "" {
		data, err := readFile(name, true)
		if err != nil {
			return Settings{}, err
		}
		if data != nil {
			c, set, err := parse(name, data)
			if err != nil {
				return Settings{}, err
			}
			s.Config, _ = overlay(s.Config, c, set, true)
			s.UserFile = name
		}
	}
	name := filepath.Join(root, FileName)
	data, err := readFile(name, false)
	if err != nil {
		return Settings{}, err
	}
	if data == nil {
		s.Config.Paths.Deny = append(s.Config.Paths.Deny, dirs.ownInside(root)...)
		s.IfTrusted = s.Config
		return s, nil
	}
	c, set, err := parse(name, data)
	if err != nil {
		return Settings{}, err
	}
	s.RepoFile, s.RepoSum, s.Trusted = name, Sum(data), dirs.trusted(name, data)
	for _, r := range keyRules {
		if set[r.key] {
			s.RepoSets = append(s.RepoSets, Setting{Key: r.key, Value: tomlValue(r.field(&c))})
		}
	}
	s.IfTrusted, _ = overlay(s.Config, c, set, true)
	s.Config, s.Ignored = overlay(s.Config, c, set, s.Trusted)
	// Last, so that no "!" pattern of either file re-allows them.
	s.Config.Paths.Deny = append(s.Config.Paths.Deny, dirs.ownInside(root)...)
	s.IfTrusted.Paths.Deny = append(s.IfTrusted.Paths.Deny, dirs.ownInside(root)...)
	return s, nil
}

// ownInside returns deny patterns for the user's file and the trust records
// when they lie inside the repository at root: a dotfiles repository makes
// ~/.config/autocoder/config.toml a symlink into itself, and a step, an MCP
// write or a model's answer there must not write what counts as the user's
// own settings, nor a trust record.
func (d Dirs) ownInside(root string) []string {
	var out []string
	roots := []string{root}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		roots = append(roots, r)
	}
	for _, p := range []string{d.UserFile(), filepath.Dir(d.record(root))} {
		if p == "" || p == "." {
			continue
		}
		p = followLinks(p)
		for _, r := range roots {
			if rel, err := filepath.Rel(r, p); err == nil && rel != "." && filepath.IsLocal(rel) {
				out = append(out, "/"+globEscape.Replace(filepath.ToSlash(rel)))
				break
			}
		}
	}
	return out
}

// followLinks is where p leads once every symlink on it is followed, as
// far as the path exists: what follows the first part that does not exist
// is kept as written. A symlink may lead where nothing is made yet (the
// user's file linked into a dotfiles repository, or ~/.config linked to a
// folder of one before autocoder's own folder exists there), and the file
// that a step would make there is the user's all the same.
func followLinks(p string) string {
	for range 40 { // links to links, as far as the system follows them
		q, tail := p, ""
		for {
			if _, err := os.Lstat(q); err == nil {
				break
			}
			parent := filepath.Dir(q)
			if parent == q {
				return p
			}
			tail, q = filepath.Join(filepath.Base(q), tail), parent
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(q))
		if err != nil {
			return p
		}
		q = filepath.Join(dir, filepath.Base(q))
		t, err := os.Readlink(q)
		if err != nil {
			return filepath.Join(q, tail) // q is no link: p leads here
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(q), t)
		}
		p = filepath.Join(t, tail)
	}
	return p
}

var globEscape = strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)

// Trust records that the user trusts the repository's file at path with
// the content whose SHA-256 is sum (Settings.RepoSum: the content the user
// was shown, not what is there a moment later).
func (d Dirs) Trust(path, sum string) error {
	rec := d.record(path)
	if rec == "" {
		return errors.New("no folder for autocoder's state was found (neither $XDG_STATE_HOME nor the home folder is known)")
	}
	if err := os.MkdirAll(filepath.Dir(rec), 0o700); err != nil {
		return fmt.Errorf("record trust: %w", err)
	}
	tmp := fmt.Sprintf("%s.%d.tmp", rec, os.Getpid())
	if err := os.WriteFile(tmp, []byte(path+"\n"+sum+"\n"), 0o600); err != nil {
		return fmt.Errorf("record trust: %w", err)
	}
	if err := os.Rename(tmp, rec); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record trust: %w", err)
	}
	return nil
}

// Untrust forgets the trust of the file at path; false when there was none.
func (d Dirs) Untrust(path string) (bool, error) {
	rec := d.record(path)
	if rec == "" {
		return false, nil
	}
	err := os.Remove(rec)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("forget trust: %w", err)
	}
	return true, nil
}

// KindOf returns the kind of a key ("programs.enabled"), 0 when unknown.
func KindOf(key string) Kind {
	for _, r := range keyRules {
		if r.key == key {
			return r.kind
		}
	}
	return 0
}
