package index

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchIndex makes a repository whose index git wrote with n entries (one
// blob under n paths, zero stat data so nothing is racy) and a cache tree,
// in the given index version, and returns the index file's path.
func benchIndex(b testing.TB, n, version int) string { return benchRepo(b, n, version).indexPath() }

// benchRepo is benchIndex's repository.
func benchRepo(b testing.TB, n, version int) *gitRepo {
	b.Helper()
	r := newGitRepo(b)
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = strings.NewReader("the same content everywhere\n")
	out, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	blob := strings.TrimSpace(string(out))
	var list strings.Builder
	for i := range n {
		fmt.Fprintf(&list, "100644 %s\tsrc/pkg%03d/sub%02d/file_%05d.go\n", blob, i/1000, i/100%10, i)
	}
	cmd = exec.Command("git", "update-index", "--index-info")
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = strings.NewReader(list.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git update-index --index-info: %v\n%s", err, out)
	}
	r.git("update-index", "--index-version", fmt.Sprint(version))
	r.git("write-tree") // adds the cache tree, as a commit would
	return r
}

// BenchmarkIndexUpdate measures one step's index work: read and verify the
// index, replace one entry, encode and hash the result into a file (the
// lock file's fsync is the disk's cost, not ours, and is left out).
func BenchmarkIndexUpdate(b *testing.B) {
	for _, bc := range []struct {
		n, version int
		op         string // modify an entry, or insert a new one (the entry count changes)
	}{{1000, 2, "modify"}, {100000, 2, "modify"}, {100000, 2, "insert"}, {100000, 4, "modify"}, {100000, 4, "insert"}} {
		b.Run(fmt.Sprintf("entries=%d/v%d/%s", bc.n, bc.version, bc.op), func(b *testing.B) {
			path := benchIndex(b, bc.n, bc.version)
			ix, err := ReadIndex(path)
			if err != nil {
				b.Fatal(err)
			}
			e, ok := ix.Entry(fmt.Sprintf("src/pkg%03d/sub%02d/file_%05d.go", bc.n/2000, bc.n/200%10, bc.n/2))
			if !ok {
				b.Fatal("entry to update not found")
			}
			out, err := os.Create(filepath.Join(b.TempDir(), "index.lock"))
			if err != nil {
				b.Fatal(err)
			}
			defer out.Close()
			b.SetBytes(int64(len(ix.data)))
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				ix, err := ReadIndex(path)
				if err != nil {
					b.Fatal(err)
				}
				e.Hash[0] = byte(i)
				e.Stat.Size = uint32(i)
				if bc.op == "insert" {
					e.Path = fmt.Sprintf("src/pkg%03d/sub%02d/new.go", bc.n/2000, bc.n/200%10)
				}
				if err := ix.Update([]IndexEntry{e}, nil); err != nil {
					b.Fatal(err)
				}
				if _, err := out.Seek(0, 0); err != nil {
					b.Fatal(err)
				}
				if _, err := ix.WriteTo(out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndexWrite measures what one call of a session costs in index
// writes at 100k entries: the Index is kept in memory (as the engine keeps
// it), one entry changes, and WriteIndex writes it under index.lock, whole
// or split (the small index against a shared one written before).
func BenchmarkIndexWrite(b *testing.B) {
	for _, split := range []bool{false, true} {
		b.Run(fmt.Sprintf("entries=100000/split=%v", split), func(b *testing.B) {
			path := benchIndex(b, 100000, 2)
			ix, err := ReadIndex(path)
			if err != nil {
				b.Fatal(err)
			}
			ix.SetSplit(split, DefaultMaxPercentChange)
			e, ok := ix.Entry("src/pkg050/sub00/file_50000.go")
			if !ok {
				b.Fatal("entry to update not found")
			}
			write := func(i int) {
				lock, err := Lock(path)
				if err != nil {
					b.Fatal(err)
				}
				e.Hash[0], e.Stat.Size = byte(i), uint32(i)
				if err := ix.Update([]IndexEntry{e}, nil); err != nil {
					b.Fatal(err)
				}
				if err := WriteIndex(lock, ix); err != nil {
					b.Fatal(err)
				}
			}
			write(0) // a split index writes its shared index here
			b.ResetTimer()
			for i := 1; b.Loop(); i++ {
				write(i)
			}
		})
	}
}

// BenchmarkReadKeptWithChanges measures a process's read of a split index
// at 100k entries whose shared index has a kept scan: with no change since
// the shared index it costs the same at any size; each entry changed since
// costs about a microsecond (its path is taken from the shared index, one
// random page of the mapped file and of the scan).
func BenchmarkReadKeptWithChanges(b *testing.B) {
	for _, r := range []int{0, 400, 4000} {
		b.Run(fmt.Sprint("changes=", r), func(b *testing.B) {
			g := benchRepo(b, 100000, 2)
			g.git("config", "splitIndex.maxPercentChange", "100")
			g.git("update-index", "--split-index")
			var list strings.Builder
			for i := range r {
				k := (i * 7919) % 100000
				fmt.Fprintf(&list, "100644 %040x\tsrc/pkg%03d/sub%02d/file_%05d.go\n", i+1, k/1000, k/100%10, k)
			}
			if r > 0 {
				g.gitIn(list.String(), "update-index", "--index-info")
			}
			m := &memVerifier{scans: map[string][]byte{}}
			forgetShared()
			if _, err := ReadIndexWith(g.indexPath(), m); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				forgetShared()
				if _, err := ReadIndexWith(g.indexPath(), m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
