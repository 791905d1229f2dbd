package gitops

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// packedRepo is a repository whose objects are in two packs (a gc, then
// more commits repacked incrementally), with deltas (versions of one file
// that differ a little), and a few loose objects after them.
func packedRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	g := gittest.New(t)
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "line %d of a file long enough for git to store versions as deltas\n", i)
	}
	commit := func(round int) {
		for f := range 6 {
			g.Write(fmt.Sprintf("d%d/f%d.txt", f%3, f), fmt.Sprintf("%sround %d file %d\n", body.String(), round, f))
		}
		g.Git("add", "-A")
		g.Git("commit", "-q", "-m", fmt.Sprint("round ", round))
	}
	for round := range 4 {
		commit(round)
	}
	g.Git("gc", "-q")
	for round := 4; round < 8; round++ {
		commit(round)
	}
	g.Git("repack", "-q", "-d") // a second pack of the new objects
	commit(8)                   // and loose ones
	return g
}

// gitObjects lists every object git has, with its type.
func gitObjects(t *testing.T, g *gittest.Repo) map[plumbing.Hash]string {
	t.Helper()
	out := map[plumbing.Hash]string{}
	for _, line := range strings.Split(strings.TrimSpace(g.Git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")), "\n") {
		h, typ, _ := strings.Cut(line, " ")
		out[plumbing.NewHash(h)] = typ
	}
	return out
}

// catFile is each object's content as git reads it (git cat-file --batch).
func catFile(t *testing.T, g *gittest.Repo, hs []plumbing.Hash) map[plumbing.Hash][]byte {
	t.Helper()
	var in bytes.Buffer
	for _, h := range hs {
		fmt.Fprintln(&in, h)
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir, cmd.Stdin = g.Dir, &in
	raw, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	out := map[plumbing.Hash][]byte{}
	rd := bufio.NewReader(bytes.NewReader(raw))
	for range hs {
		hdr, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(hdr)
		n, _ := strconv.Atoi(f[2])
		b := make([]byte, n+1)
		if _, err := io.ReadFull(rd, b); err != nil {
			t.Fatal(err)
		}
		out[plumbing.NewHash(f[0])] = b[:n]
	}
	return out
}

// goGitDecodedIndexes reports whether go-git's object store decoded the
// pack indexes (its requireIndex fills the field "index"): the lookups of
// packs.go exist so that it does not. A go-git release that renames the
// field fails this test, which then needs the new name.
func goGitDecodedIndexes(t *testing.T, r *Repo) bool {
	t.Helper()
	f := reflect.ValueOf(r.objects).Elem().FieldByName("index")
	if !f.IsValid() || f.Kind() != reflect.Map {
		t.Fatal("go-git's ObjectStorage has no map field \"index\" any more")
	}
	return !f.IsNil()
}

// checkReadsAsGit reads every object git has through the Repo and compares
// type and content with git cat-file, and asks for objects nobody has.
func checkReadsAsGit(t *testing.T, g *gittest.Repo) {
	t.Helper()
	objs := gitObjects(t, g)
	var hs []plumbing.Hash
	for h := range objs {
		hs = append(hs, h)
	}
	want := catFile(t, g, hs)
	r := openIn(t, g.Dir)
	packed := 0
	for h, typ := range objs {
		ot, err := plumbing.ParseObjectType(typ)
		if err != nil {
			t.Fatal(err)
		}
		if !r.hasObject(h) {
			t.Errorf("%s %s: not found", typ, h)
		}
		got, err := r.ReadObject(ot, h)
		if err != nil {
			t.Errorf("%s %s: %v", typ, h, err)
			continue
		}
		if !bytes.Equal(got, want[h]) {
			t.Errorf("%s %s: read %q, git cat-file says %q", typ, h, got, want[h])
		}
		if r.packs.find(h) != nil {
			packed++
		}
	}
	if packed == 0 {
		t.Fatal("no object was found in a pack: the test reads nothing packed")
	}
	for _, s := range []string{"0000000000000000000000000000000000000000", "ffffffffffffffffffffffffffffffffffffffff", "8000000000000000000000000000000000000001"} {
		h := plumbing.NewHash(s)
		if r.hasObject(h) {
			t.Errorf("%s: found, git has no such object", h)
		}
		if _, err := r.ReadObject(plumbing.BlobObject, h); !errors.Is(err, plumbing.ErrObjectNotFound) {
			t.Errorf("%s: ReadObject = %v, want not found", h, err)
		}
	}
	// A blob asked for as a tree is not found, as go-git answers.
	for h, typ := range objs {
		if typ == "blob" {
			if _, err := r.ReadObject(plumbing.TreeObject, h); !errors.Is(err, plumbing.ErrObjectNotFound) {
				t.Errorf("blob %s read as a tree: %v", h, err)
			}
			break
		}
	}
	if goGitDecodedIndexes(t, r) {
		t.Error("go-git decoded the pack indexes")
	}
}

func TestPackedObjectsReadAsGit(t *testing.T) {
	t.Parallel()
	g := packedRepo(t)
	packs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "objects", "pack", "*.idx"))
	if len(packs) < 2 {
		t.Fatalf("%d packs; the test wants several", len(packs))
	}
	if !strings.Contains(g.Git("verify-pack", "-v", packs[0], packs[1]), "chain length") {
		t.Fatal("no deltas in the packs; the test wants OFS_DELTA objects")
	}
	checkReadsAsGit(t, g)
}

// Packs over 2 GiB store offsets in a 64-bit table; git index-pack writes
// every offset past its limit there (12: all but the first object's; with
// 0, git itself refuses the index it wrote as too large).
func TestPackIndexWith64BitOffsets(t *testing.T) {
	t.Parallel()
	g := packedRepo(t)
	g.Git("repack", "-q", "-a", "-d")
	packs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs after repack -a", len(packs))
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	if err := os.Remove(idx); err != nil {
		t.Fatal(err)
	}
	g.Git("index-pack", "--index-version=2,12", packs[0])
	x, err := openPackIdx(idx)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.offs64) != 8*(x.n-1) || x.n < 2 {
		t.Fatalf("%d bytes of 64-bit offsets for %d objects: git did not write the table", len(x.offs64), x.n)
	}
	checkReadsAsGit(t, g)
}

// A damaged or unknown pack index is not read here: go-git is asked, which
// reads or refuses it as before, and nothing panics.
func TestPackIndexDamagedIsGoGits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"fan-out decreasing", func(b []byte) []byte {
			b = bytes.Clone(b)
			binary.BigEndian.PutUint32(b[8+4*10:], 0xffffff)
			return b
		}},
		{"version 3", func(b []byte) []byte {
			b = bytes.Clone(b)
			binary.BigEndian.PutUint32(b[4:], 3)
			return b
		}},
		{"empty", func([]byte) []byte { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
			g.Git("gc", "-q")
			head := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
			idxs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "objects", "pack", "*.idx"))
			if len(idxs) != 1 {
				t.Fatalf("%d pack indexes", len(idxs))
			}
			b, err := os.ReadFile(idxs[0])
			if err != nil {
				t.Fatal(err)
			}
			os.Chmod(idxs[0], 0o644)
			if err := os.WriteFile(idxs[0], tc.edit(b), 0o644); err != nil {
				t.Fatal(err)
			}
			r := openIn(t, g.Dir)
			_, err = r.ReadObject(plumbing.CommitObject, head)
			if err == nil {
				t.Fatal("read a commit through a damaged pack index")
			}
			if !r.packs.unknown {
				t.Error("the damaged index was not left to go-git")
			}
		})
	}
}

func TestParsePackIdxRefusesBadSizes(t *testing.T) {
	good := make([]byte, 8+1024+40)
	copy(good, "\377tOc\x00\x00\x00\x02")
	if _, err := parsePackIdx(good); err != nil {
		t.Fatalf("an empty index: %v", err)
	}
	one := bytes.Clone(good)
	for i := 0; i < 256; i++ {
		binary.BigEndian.PutUint32(one[8+4*i:], 1)
	}
	for _, extra := range []int{0, 4, 8} {
		b := append(bytes.Clone(one), make([]byte, 28+extra)...)
		_, err := parsePackIdx(b)
		// One object: no 64-bit offset can be needed (git's max_size).
		if (err == nil) != (extra == 0) {
			t.Errorf("one object and %d extra bytes: %v", extra, err)
		}
	}
	if _, err := parsePackIdx(one); err == nil {
		t.Error("one object in an index without room for it")
	}
}

// Writing an object a pack already holds writes no loose copy, as git's
// write_object_file finds it and freshens the pack instead.
func TestWriteObjectFindsItPacked(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "packed content\n"})
	g.Git("gc", "-q")
	r := openIn(t, g.Dir)
	h, err := r.WriteBlob([]byte("packed content\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.looseExists(h) {
		t.Error("a packed object was written again, loose")
	}
	if goGitDecodedIndexes(t, r) {
		t.Error("go-git decoded the pack indexes")
	}
}

// BenchmarkPackLookup is the object store's part of a one-step apply at
// 100k packed objects (issue #20), both ways in one run: open the store,
// ask for an object that is not there (WriteObject's question for each new
// blob and tree) and read one that is. "go-git" is go-git's
// filesystem storage alone, which decodes every pack index at the first
// packed lookup; "mapped" is packs.go.
//
//	go test -run '^$' -bench BenchmarkPackLookup -benchtime 20x ./gitops/
func BenchmarkPackLookup(b *testing.B) {
	gittest.Isolate(b)
	g := gittest.New(b)
	const n = 100000
	var in bytes.Buffer
	for i := range n {
		c := fmt.Sprintf("blob %d of the lookup benchmark\n", i)
		fmt.Fprintf(&in, "blob\ndata %d\n%s\n", len(c), c)
	}
	in.WriteString("done\n")
	cmd := exec.Command("git", "fast-import", "--quiet", "--done")
	cmd.Dir, cmd.Stdin = g.Dir, &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	present := plumbing.ComputeHash(plumbing.BlobObject, []byte(fmt.Sprintf("blob %d of the lookup benchmark\n", n/2)))
	r, err := Open(g.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, way := range []string{"go-git", "mapped"} {
		b.Run(way, func(b *testing.B) {
			var times []time.Duration
			for i := range b.N {
				absent := plumbing.ComputeHash(plumbing.BlobObject, []byte(fmt.Sprint("absent ", i)))
				start := time.Now()
				r.reopen()
				var o plumbing.EncodedObject
				var err error
				if way == "go-git" {
					if r.objects.HasEncodedObject(absent) == nil {
						b.Fatal("found an absent object")
					}
					o, err = r.objects.EncodedObject(plumbing.BlobObject, present)
				} else {
					if r.hasObject(absent) {
						b.Fatal("found an absent object")
					}
					o, err = r.encodedObject(plumbing.BlobObject, present)
				}
				if err != nil || o.Hash() != present {
					b.Fatalf("read %s: %v", present, err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
		})
	}
}

// Objects stored whole, in a pack or loose, are read by readDirect, and as
// git reads them; deltas are left to go-git, and so is anything that does
// not read cleanly: another type than asked, a size other than the
// header's, bytes after the stream, a bad checksum.
func TestReadDirectTakesWholeObjectsOnly(t *testing.T) {
	t.Parallel()
	g := packedRepo(t)
	objs := gitObjects(t, g)
	var hs []plumbing.Hash
	for h := range objs {
		hs = append(hs, h)
	}
	want := catFile(t, g, hs)
	deltas := map[plumbing.Hash]bool{}
	packs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "objects", "pack", "*.idx"))
	for _, line := range strings.Split(g.Git(append([]string{"verify-pack", "-v"}, packs...)...), "\n") {
		if f := strings.Fields(line); len(f) == 7 && len(f[0]) == 40 {
			deltas[plumbing.NewHash(f[0])] = true
		}
	}
	r := openIn(t, g.Dir)
	var packed, loose int
	for h, typ := range objs {
		ot, _ := plumbing.ParseObjectType(typ)
		got, ok := r.readDirect(ot, h)
		switch {
		case ok == deltas[h]:
			t.Errorf("%s %s (a delta: %v): read directly: %v", typ, h, deltas[h], ok)
		case ok && !bytes.Equal(got, want[h]):
			t.Errorf("%s %s: read %q, git cat-file says %q", typ, h, got, want[h])
		case ok && r.packs.find(h) != nil:
			packed++
		case ok:
			loose++
		}
		other := plumbing.BlobObject
		if ot == plumbing.BlobObject {
			other = plumbing.TreeObject
		}
		if _, ok := r.readDirect(other, h); ok {
			t.Errorf("%s %s read directly as a %s", typ, h, other)
		}
	}
	if packed == 0 || loose == 0 || len(deltas) == 0 {
		t.Fatalf("%d packed, %d loose objects read directly, %d deltas: the test wants each", packed, loose, len(deltas))
	}

	// Loose files that git refuses (or reads otherwise) are not read here.
	zip := func(b []byte) []byte {
		var out bytes.Buffer
		w := zlib.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	good := zip([]byte("blob 5\x00hello"))
	badSum := slices.Clone(good)
	badSum[len(badSum)-1] ^= 1
	for name, file := range map[string][]byte{
		"size larger than the content":  zip([]byte("blob 6\x00hello")),
		"size smaller than the content": zip([]byte("blob 4\x00hello")),
		"no end of header":              zip([]byte("blob 5 hello")),
		"unknown type":                  zip([]byte("blab 5\x00hello")),
		"bytes after the stream":        append(slices.Clone(good), 0),
		"bad checksum":                  badSum,
		"cut short":                     good[:len(good)-3],
		"a size of a gigabyte":          zip([]byte("blob 1073741823\x00hello")),
		"a size past the limit":         zip([]byte("blob 99999999999\x00hello")),
	} {
		h := plumbing.ComputeHash(plumbing.BlobObject, []byte(name))
		p := filepath.Join(g.Dir, ".git", "objects", h.String()[:2], h.String()[2:])
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, file, 0o444); err != nil {
			t.Fatal(err)
		}
		if got, ok := r.readDirect(plumbing.BlobObject, h); ok {
			t.Errorf("%s: read directly as %q", name, got)
		}
	}
	h := plumbing.ComputeHash(plumbing.BlobObject, []byte("hello"))
	p := filepath.Join(g.Dir, ".git", "objects", h.String()[:2], h.String()[2:])
	os.MkdirAll(filepath.Dir(p), 0o777)
	if err := os.WriteFile(p, good, 0o444); err != nil {
		t.Fatal(err)
	}
	if got, ok := r.readDirect(plumbing.BlobObject, h); !ok || string(got) != "hello" {
		t.Errorf("a sound loose blob read as %q, %v", got, ok)
	}
}

// git reads a packed object from its pack, before any loose file of the
// same name (odb's oid_object_info_extended: find_pack_entry first). A
// stranger's repository can hold a loose file under the name of a packed
// delta with other content: ReadObject must answer what git answers, as
// it did through go-git's pack reader, not the loose file's bytes.
func TestReadObjectPrefersThePackOverALooseFile(t *testing.T) {
	t.Parallel()
	g := packedRepo(t)
	packs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "objects", "pack", "*.idx"))
	var delta plumbing.Hash
	for _, line := range strings.Split(g.Git(append([]string{"verify-pack", "-v"}, packs...)...), "\n") {
		if f := strings.Fields(line); len(f) == 7 && len(f[0]) == 40 && f[1] == "blob" {
			delta = plumbing.NewHash(f[0])
			break
		}
	}
	if delta.IsZero() {
		t.Fatal("no blob stored as a delta")
	}
	want := g.Git("cat-file", "blob", delta.String())
	var planted bytes.Buffer
	w := zlib.NewWriter(&planted)
	w.Write([]byte("blob 8\x00planted\n"))
	w.Close()
	p := filepath.Join(g.Dir, ".git", "objects", delta.String()[:2], delta.String()[2:])
	os.MkdirAll(filepath.Dir(p), 0o777)
	if err := os.WriteFile(p, planted.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("cat-file", "blob", delta.String()); got != want {
		t.Fatalf("git reads the loose file: %q", got)
	}
	r := openIn(t, g.Dir)
	got, err := r.ReadBlob(delta)
	if err != nil || string(got) != want {
		t.Fatalf("ReadBlob(%s) = %q, %v; git cat-file gives %d bytes", delta, got, err, len(want))
	}
}
