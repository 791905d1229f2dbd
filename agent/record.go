package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/autocoder/autocoder/gitops"
)

// runsDir is where `autocoder run` keeps its conversations, in
// autocoder's own folder of the repository.
const runsDir = "runs"

// Keep saves the run's record with the repository's own data (p is the
// engine's private folder), named for the time it ended and the process,
// where `autocoder show` finds the turn a step came from (Recorded). It
// returns the file's path.
func (r *Report) Keep(p *gitops.Private, now time.Time) (string, error) {
	path := p.Path(runsDir + "/" + now.UTC().Format("20060102T150405Z") + fmt.Sprintf("-%d.json", os.Getpid()))
	return path, r.Save(path)
}

// Recorded is FindTurn over the records Keep saved in p.
func Recorded(p *gitops.Private, commit string) (file string, rep *Report, turn *Turn, ok bool, err error) {
	return FindTurn(p.Path(runsDir), commit)
}

// Save writes the run's record (the conversation, each turn's results and
// feedback) as JSON to path, creating its folder: a temporary file renamed
// into place, so a reader never sees half a record.
func (r *Report) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return fmt.Errorf("save the run: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".run-*.tmp")
	if err != nil {
		return fmt.Errorf("save the run: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save the run: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save the run: %w", err)
	}
	return nil
}

// FindTurn looks through the run records saved in dir for the turn whose
// results made commit (a step's commit or its programs' commit). ok is false
// when no record has it (the step came from apply, or its record is gone).
func FindTurn(dir, commit string) (file string, rep *Report, turn *Turn, ok bool, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(names) == 0 {
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return "", nil, nil, false, err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names))) // newest first: names start with the time
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var r Report
		if json.Unmarshal(b, &r) != nil {
			continue
		}
		for i := range r.Turns {
			for _, res := range r.Turns[i].Results {
				if commit != "" && (strings.HasPrefix(res.Commit, commit) || strings.HasPrefix(res.ProgramCommit, commit)) {
					return name, &r, &r.Turns[i], true, nil
				}
			}
		}
	}
	return "", nil, nil, false, nil
}
