package bridge

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// Every request on a repository leaves one JSON line in the bridge log, in
// autocoder's own folder under the git directory (gitops.Private): when,
// from which site, the SHA-256 of the answer, how many steps, which
// commits, and the outcome. The log is also how a second apply of the same
// answer is known: its commits are still on the work branch.

// logName is the log's name in autocoder's folder.
const logName = "bridge.jsonl"

// maxLogLine is the longest line of the log that is read.
const maxLogLine = 256 << 20

type logEntry struct {
	Time    string   `json:"time"`
	Site    string   `json:"site"`
	Type    string   `json:"type"`
	Answer  string   `json:"answer_sha256,omitempty"`
	Steps   int      `json:"steps"`
	Commits []string `json:"commits"`
	Outcome string   `json:"outcome"`
}

// appendLog adds entry to the repository's bridge log.
func appendLog(e *txn.Engine, now time.Time, entry logEntry) error {
	priv := e.Private()
	entry.Time = now.UTC().Format(time.RFC3339)
	if entry.Commits == nil {
		entry.Commits = []string{}
	}
	line, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	name := priv.Path(logName)
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		// A pipe or a device at the log's name is no log autocoder made
		// (opening a pipe to write waits for a reader forever): it goes,
		// as OpenOwn does with a symlink.
		if err := os.Remove(name); err != nil {
			return err
		}
	}
	f, err := gitops.OpenOwn(name, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// alreadyApplied is the commits of the last apply of the answer with this
// hash, when that apply went through and every one of its commits is
// still on the current work branch (an undo brings the answer back to
// unapplied); nil otherwise.
func alreadyApplied(e *txn.Engine, hash string) ([]string, error) {
	priv := e.Private()
	name := priv.Path(logName)
	if fi, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err == nil && !fi.Mode().IsRegular() {
		// A symlink, a pipe or a device is no log autocoder wrote (and a
		// pipe would hold the request forever): nothing is known applied.
		return nil, nil
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var last []string
	sc := bufio.NewScanner(f)
	// A line holds an apply's commits: 42 bytes each, so 1 MiB is only
	// some 25,000 steps. A line too long for this stops the reading, and
	// an error says so, rather than an answer read past being taken as
	// never applied.
	sc.Buffer(nil, maxLogLine)
	for sc.Scan() {
		var en logEntry
		if json.Unmarshal(sc.Bytes(), &en) != nil || en.Answer != hash || en.Type != "apply" {
			continue
		}
		switch en.Outcome {
		case "applied", "already_applied":
			last = en.Commits
		default:
			last = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &step.Error{C: step.ClassRefused, Msg: "cannot read the bridge log " + name + ", which tells whether this answer is applied already", Err: err,
			Fix: fmt.Sprintf("move it aside (mv %s %s.old); the bridge starts a new one", name, name)}
	}
	if len(last) == 0 {
		return nil, nil
	}
	_, entries, err := e.Log()
	if err != nil {
		return nil, nil // not on a work branch: nothing of it is here
	}
	for _, c := range last {
		if !slices.ContainsFunc(entries, func(en txn.LogEntry) bool { return en.Commit == c }) {
			return nil, nil
		}
	}
	return last, nil
}
