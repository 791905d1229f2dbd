package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/step"
)

// The repositories the extension may act on are the ones the user
// registered on the command line (autocoder bridge add PATH), kept in the
// user's folder. A request names one by its name; nothing a page sends is
// ever a path.

// RegistryFileName is the registry's file in the user's autocoder folder.
const RegistryFileName = "bridge-repositories.json"

// Repository is one registered repository.
type Repository struct {
	Name string `json:"name"`
	Path string `json:"path"` // the work tree's root, absolute
}

type registryFile struct {
	Repositories []Repository `json:"repositories"`
}

// Registry is the registered repositories, in the file at Path.
type Registry struct {
	Path         string
	Repositories []Repository
}

// RegistryPath is where the registry is kept.
func RegistryPath() (string, error) {
	dir, err := config.UserDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, RegistryFileName), nil
}

// LoadRegistry reads the registry at path (empty when there is none). A
// file other accounts may write is refused: it decides where the browser
// may write.
func LoadRegistry(path string) (*Registry, error) {
	reg := &Registry{Path: path}
	data, err := config.ReadUserFile(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		return reg, nil
	}
	if err != nil {
		return nil, err
	}
	var f registryFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &step.Error{C: step.ClassUsage, Msg: "cannot read the bridge's repositories in " + path, Err: err,
			Fix: "remove the file and register the repositories again with autocoder bridge add PATH"}
	}
	reg.Repositories = f.Repositories
	return reg, nil
}

func (r *Registry) save() error {
	data, err := json.MarshalIndent(registryFile{Repositories: r.Repositories}, "", "  ")
	if err != nil {
		return err
	}
	return config.WriteUserFile(r.Path, append(data, '\n'), true)
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Add registers the repository whose root is root under name ("" : the
// root's folder name). A root registered already keeps its entry.
func (r *Registry) Add(name, root string) (Repository, error) {
	if name == "" {
		name = filepath.Base(root)
	}
	if !nameRE().MatchString(name) {
		return Repository{}, &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("%q cannot name a repository: use letters, digits, '.', '_' and '-' (up to 64)", name),
			Fix: "autocoder bridge add --name NAME " + root}
	}
	for _, rp := range r.Repositories {
		if rp.Path == root {
			return rp, nil
		}
		if strings.EqualFold(rp.Name, name) {
			return Repository{}, &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("the name %s is taken by %s", rp.Name, rp.Path),
				Fix: "choose another: autocoder bridge add --name NAME " + root}
		}
	}
	rp := Repository{Name: name, Path: root}
	r.Repositories = append(r.Repositories, rp)
	return rp, r.save()
}

// Remove unregisters the repository called name.
func (r *Registry) Remove(name string) error {
	i := slices.IndexFunc(r.Repositories, func(rp Repository) bool { return rp.Name == name })
	if i < 0 {
		return r.unknown(name)
	}
	r.Repositories = slices.Delete(r.Repositories, i, i+1)
	return r.save()
}

// Lookup is the repository a request names: with one registered, that one
// whatever the request says is empty; with several, the one called name.
func (r *Registry) Lookup(name string) (Repository, error) {
	if name == "" {
		switch len(r.Repositories) {
		case 1:
			return r.Repositories[0], nil
		case 0:
			return Repository{}, &step.Error{C: step.ClassRefused, Msg: "no repository is registered for the browser extension",
				Fix: "register one in a terminal: autocoder bridge add /path/to/repository"}
		}
		return Repository{}, &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("%d repositories are registered; the request names none", len(r.Repositories)),
			Fix: "choose the repository for this site in the extension's options (" + strings.Join(r.names(), ", ") + ")"}
	}
	for _, rp := range r.Repositories {
		if rp.Name == name {
			return rp, nil
		}
	}
	return Repository{}, r.unknown(name)
}

func (r *Registry) names() []string {
	var ns []string
	for _, rp := range r.Repositories {
		ns = append(ns, rp.Name)
	}
	return ns
}

func (r *Registry) unknown(name string) error {
	return &step.Error{C: step.ClassRefused, Msg: fmt.Sprintf("%q is not a registered repository (registered: %s)", name, strings.Join(r.names(), ", ")),
		Fix: "register it in a terminal: autocoder bridge add /path/to/repository (autocoder bridge list shows the names)"}
}
