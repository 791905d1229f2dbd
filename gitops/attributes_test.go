package gitops_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// eolContents are the contents every combination is tried on: LF, CRLF,
// mixed, a lone CR, binary (NUL), a DOS EOF mark, no line ending, empty.
var eolContents = []string{
	"a\nb\n", "a\r\nb\r\n", "a\r\nb\n", "a\rb\n", "a\x00\r\nb\n", "a\r\nb\r\n\x1a", "no newline", "",
	"\r\n", "x\n\r\n\n", "a\rb\r\nc\n", "a\x01\x02\x03\x04\x05\x06\x07\x08\r\n",
}

// eolAttrSets are the attributes tried, each in a folder of its own (its
// rules in that folder's .gitattributes, "sub/" a folder below it): the
// plain settings, then priorities (a deeper file, a later line,
// info/attributes, a macro from the root, an unspecified attribute, an
// anchored pattern), then lines too long for git.
var eolAttrSets = []map[string]string{
	{},
	{".gitattributes": "* text\n"},
	{".gitattributes": "* text=auto\n"},
	{".gitattributes": "* -text\n"},
	{".gitattributes": "* binary\n"},
	{".gitattributes": "* text eol=lf\n"},
	{".gitattributes": "* text eol=crlf\n"},
	{".gitattributes": "* eol=crlf\n"},
	{".gitattributes": "* eol=lf\n"},
	{".gitattributes": "* text=auto eol=crlf\n"},
	{".gitattributes": "* text=auto eol=lf\n"},
	{".gitattributes": "* crlf\n"},
	{".gitattributes": "* -crlf\n"},
	{".gitattributes": "* crlf=input\n"},
	{".gitattributes": "*.txt text eol=crlf\n", "sub/.gitattributes": "*.txt -text\n"},
	{".gitattributes": "* text eol=crlf\n*.txt text eol=lf\n"},
	{".gitattributes": "* text eol=crlf\n", "info": "sub/** binary\n"},
	{".gitattributes": "*.txt mytext\n"},
	{".gitattributes": "* text=auto eol=crlf\nsub/*.txt !eol !text\n"},
	{".gitattributes": "/c1.txt text eol=crlf\n"},
	// A line of 2048 bytes or more git ignores (attr.c, ATTR_MAX_LINE_LENGTH).
	{".gitattributes": "* text eol=crlf " + strings.Repeat("x ", 1100) + "\n"},
	{".gitattributes": "* text=auto eol=crlf " + strings.Repeat("y", 2026) + "\n"},
}

// TestConversionIsGits judges ToGit and ToWorktree with git itself, for
// every combination of core.autocrlf, core.eol and attributes on every
// content: ToGit must give the blob `git add` stores, and ToWorktree the
// file `git checkout` writes.
func TestConversionIsGits(t *testing.T) {
	if testing.Short() {
		t.Skip("compares every conversion setting with git: slow; runs without -short")
	}
	t.Parallel()
	// "autocrlf" without "=" is git's true, "autocrlf =" its false.
	for _, cfg := range []string{"autocrlf = false", "autocrlf = false\n\teol = crlf", "autocrlf = true", "autocrlf = input",
		"autocrlf", "autocrlf =\n\teol = crlf", "autocrlf = On"} {
		r := gittest.New(t)
		f, err := os.OpenFile(filepath.Join(r.Dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("[core]\n\tsafecrlf = false\n\t" + cfg + "\n")
		f.Close()
		r.Write(".gitattributes", "[attr]mytext text eol=crlf\n")
		var info string
		var paths []string
		var content []string
		for k, set := range eolAttrSets {
			for p, rules := range set {
				if p == "info" {
					info += fmt.Sprintf("%d/%s", k, rules)
					continue
				}
				r.Write(fmt.Sprintf("%d/%s", k, p), rules)
			}
			for i, c := range eolContents {
				for _, dir := range []string{"", "sub/"} {
					p := fmt.Sprintf("%d/%sc%d.txt", k, dir, i)
					paths = append(paths, p)
					content = append(content, c)
					r.Write(p, c)
				}
			}
		}
		os.MkdirAll(filepath.Join(r.Dir, ".git", "info"), 0o777)
		os.WriteFile(filepath.Join(r.Dir, ".git", "info", "attributes"), []byte(info), 0o666)
		// git add: the blobs git makes of each file.
		r.GitIn(strings.Join(paths, "\n")+"\n", "add", "--pathspec-from-file=-")
		staged := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(r.Git("ls-files", "-s")), "\n") {
			f := strings.Fields(line)
			staged[f[3]] = f[1]
		}
		repo, err := gitops.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		at := repo.Attributes()
		for i, p := range paths {
			conv := at.Conversion(p)
			got := conv.ToGit([]byte(content[i]), func() bool { return false })
			if gitops.BlobHash(got).String() != staged[p] {
				t.Errorf("%s: %s (%q) %q: ToGit gives %q, git add stored %q", cfg, p, eolAttrSets[i/(2*len(eolContents))], content[i], got, r.Git("cat-file", "blob", staged[p]))
			}
		}
		// git checkout: the file git writes for each blob (a blob holding
		// the content as it is, without conversion).
		raw := t.TempDir()
		var files []string
		for i, c := range eolContents {
			f := filepath.Join(raw, fmt.Sprint(i))
			os.WriteFile(f, []byte(c), 0o666)
			files = append(files, f)
		}
		hashes := strings.Fields(r.GitIn(strings.Join(files, "\n")+"\n", "hash-object", "-w", "--no-filters", "--stdin-paths"))
		var index []string
		for i, p := range paths {
			index = append(index, fmt.Sprintf("100644 %s\t%s", hashes[(i/2)%len(eolContents)], p))
			os.Remove(filepath.Join(r.Dir, p))
		}
		r.GitIn(strings.Join(index, "\n")+"\n", "update-index", "--index-info")
		r.GitIn(strings.Join(paths, "\n")+"\n", "checkout", "--pathspec-from-file=-", "--")
		for i, p := range paths {
			want := r.MustRead(p)
			if got := string(at.Conversion(p).ToWorktree([]byte(content[i]))); got != want {
				t.Errorf("%s: %s (%q) blob %q: ToWorktree gives %q, git checkout wrote %q", cfg, p, eolAttrSets[i/(2*len(eolContents))], content[i], got, want)
			}
		}
		repo.Close()
	}
}

// A file whose committed blob has CRLF is left as it is by text git
// detects ("auto"), so that it does not look changed forever; git's
// has_crlf_in_index.
func TestConversionKeepsCRLFBlobUnderAuto(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Git("config", "core.autocrlf", "false")
	r.Write("f.txt", "a\r\nb\r\n")
	r.Git("add", "f.txt")
	r.Git("commit", "-q", "-m", "crlf blob")
	r.Git("config", "core.autocrlf", "true")
	r.Write("f.txt", "a\r\nb\r\nc\r\n")
	r.Git("add", "f.txt")
	want := strings.Fields(r.Git("ls-files", "-s", "f.txt"))[1]
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	conv := repo.Attributes().Conversion("f.txt")
	data := []byte("a\r\nb\r\nc\r\n")
	if got := gitops.BlobHash(conv.ToGit(data, func() bool { return true })).String(); got != want {
		t.Errorf("with a CR in the index blob: %s, git add: %s", got, want)
	}
	if got := gitops.BlobHash(conv.ToGit(data, func() bool { return false })); got.String() == want {
		t.Error("without a CR in the index blob the content must be converted")
	}
}

// A filter (Git LFS) or a working-tree-encoding is named in the refusal.
func TestConversionUnsupported(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n*.utf16 working-tree-encoding=UTF-16\n")
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	at := repo.Attributes()
	if err := at.Conversion("x/a.bin").Unsupported(); err == nil || !strings.Contains(err.Error(), `filter "lfs"`) {
		t.Errorf("a.bin: %v", err)
	}
	if err := at.Conversion("a.utf16").Unsupported(); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("a.utf16: %v", err)
	}
	if err := at.Conversion("a.txt").Unsupported(); err != nil {
		t.Errorf("a.txt: %v", err)
	}
}

// The conversion follows core.autocrlf as it is when the attribute rules
// are read again (a session's next call): a Repo does not keep a
// configuration that changed.
func TestConversionSeesConfigChange(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Git("config", "core.autocrlf", "false")
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	crlf := []byte("a\r\nb\r\n")
	noCR := func() bool { return false }
	if got := string(repo.Attributes().Conversion("f.txt").ToGit(crlf, noCR)); got != string(crlf) {
		t.Fatalf("autocrlf=false: %q", got)
	}
	r.Git("config", "core.autocrlf", "true")
	repo.ForgetAttributes()
	if got := string(repo.Attributes().Conversion("f.txt").ToGit(crlf, noCR)); got != "a\nb\n" {
		t.Fatalf("autocrlf=true: %q, want LF endings as git add stores them", got)
	}
}
