package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A session writing files and the index within the same seconds (racy
// git at every step): after each write the user changes a file the index
// holds within the second of its mtime, keeping its size and mtime (so
// that its stat data still match).
// git must see every such change at every later write: the entry is
// racily clean where the index file is of its second, and each write of
// a later second must have smudged it, split (raw entries of a shared
// index among them, also of one written by the session) or whole.
func TestASessionKeepsEveryRacyChangeVisible(t *testing.T) {
	for _, mode := range []string{"whole", "git-split", "split-20", "split-0"} {
		for _, version := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s v%d", mode, version), func(t *testing.T) {
				t.Parallel()
				racySession(t, version, mode, uint64(version*7+len(mode)))
			})
		}
	}
}

func racySession(t *testing.T, version int, mode string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	r := newGitRepo(t)
	r.git("config", "core.trustctime", "false")
	r.git("config", "splitIndex.maxPercentChange", "100")
	write := func(p, content string) {
		full := filepath.Join(r.dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	for i := range 40 {
		files = append(files, fmt.Sprintf("d%d/f%02d.txt", i%4, i))
		write(files[i], fmt.Sprintf("file %02d\n", i))
	}
	r.git("add", ".")
	r.git("commit", "-q", "-m", "base")
	r.git("update-index", "--index-version", fmt.Sprint(version))
	if mode == "git-split" {
		r.git("update-index", "--split-index")
	}
	lock, ix := lockAndRead(t, r)
	defer func() { lock.Rollback() }()
	switch mode {
	case "split-20":
		ix.SetSplit(true, 20)
	case "split-0":
		ix.SetSplit(true, 0)
	}
	sneaky := map[string]bool{}
	var log []string
	for round := range 30 {
		var set []IndexEntry
		for range 1 + rng.IntN(3) {
			p := files[rng.IntN(len(files))]
			if slices.ContainsFunc(set, func(e IndexEntry) bool { return e.Path == p }) {
				continue
			}
			write(p, fmt.Sprintf("round %03d %s\n", round, p))
			set = append(set, r.entry(p))
			delete(sneaky, p)
		}
		log = append(log, fmt.Sprintf("round %d (%s): set %v", round, time.Now().Format("05.000"), paths(set)))
		if err := ix.Update(set, nil); err != nil {
			t.Fatal(err)
		}
		if err := WriteIndex(lock, ix); err != nil {
			t.Fatal(err)
		}
		// The user's change: same size, and in the second of the mtime
		// the index holds (else the change could not keep it).
		p := files[rng.IntN(len(files))]
		if len(set) > 0 && rng.IntN(2) == 0 {
			p = set[rng.IntN(len(set))].Path
		}
		if e, ok := ix.Entry(p); ok && !sneaky[p] && (e.Stat.Size == 0 || time.Now().Unix() == int64(e.Stat.MtimeSec)) {
			full := filepath.Join(r.dir, p)
			old, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			changed := []byte(strings.ToUpper(string(old)))
			if err := os.WriteFile(full, changed, 0o644); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Lstat(full)
			mt := fi.ModTime()
			if e.Stat.Size != 0 {
				mt = time.Unix(int64(e.Stat.MtimeSec), int64(e.Stat.MtimeNsec))
			}
			if err := os.Chtimes(full, mt, mt); err != nil {
				t.Fatal(err)
			}
			sneaky[p] = true
			log = append(log, fmt.Sprintf("  the user changed %s", p))
		}
		want := slices.Sorted(func(yield func(string) bool) {
			for p := range sneaky {
				if !yield(p) {
					return
				}
			}
		})
		if got := strings.Fields(r.git("diff", "--name-only")); !slices.Equal(got, want) {
			t.Fatalf("%s\ngit diff --name-only = %q, want %q", strings.Join(log, "\n"), got, want)
		}
		var err error
		if lock, err = Lock(r.indexPath()); err != nil {
			t.Fatal(err)
		}
	}
	lock.Rollback()
	r.git("fsck", "--strict", "--no-progress")
}
