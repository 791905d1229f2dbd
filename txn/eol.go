package txn

import (
	"github.com/autocoder/autocoder/gitops"
)

// Line endings as git does them. A file's worktree bytes and its blob
// differ where core.autocrlf or .gitattributes (text, eol) say so; the
// engine keeps both forms of every file it writes: the blob as `git add`
// would store it, the file as `git checkout` would write it. The rules are
// gitops.Attributes'; this file only says where the engine uses them.

// conversion is what git does to rel's content.
func (e *Engine) conversion(rel string) gitops.Conversion {
	return e.repo.Attributes().Conversion(rel)
}

// blobHasCR reports whether the blob h holds a carriage return; false for
// the zero hash or an unreadable blob.
func (e *Engine) blobHasCR(h gitops.Hash) func() bool {
	return func() bool {
		if h.IsZero() {
			return false
		}
		b, err := e.repo.ReadBlob(h)
		return err == nil && gitops.HasCR(b)
	}
}

// matchesBlob reports whether worktree content data is what blob h holds,
// as git status judges it: the bytes as they are, or after the conversion
// git add would apply (index: the blob the index holds for the path, for
// git's rule that a CRLF blob is not converted under text=auto).
func (e *Engine) matchesBlob(rel string, data []byte, h, index gitops.Hash) bool {
	if gitops.BlobHash(data) == h {
		return true
	}
	conv := e.conversion(rel)
	if conv.Identity() {
		return false
	}
	return gitops.BlobHash(conv.ToGit(data, e.blobHasCR(index))) == h
}

// toWorktree is the file git checkout writes for blob content of rel.
func (e *Engine) toWorktree(rel string, blob []byte) []byte {
	return e.conversion(rel).ToWorktree(blob)
}

// settle gives a file the step writes its two forms: blob, as git add
// would store f.data, and f.data itself rewritten as git checkout would
// write that blob, so that git status, git diff and a later checkout all
// agree with what is on disk. old is the blob HEAD (and, by the guard, the
// index) holds for the path.
func (e *Engine) settle(f *file, old entry) error {
	conv := e.conversion(f.rel)
	if err := conv.Unsupported(); err != nil {
		return err
	}
	if conv.Identity() || f.mode == gitops.ModeSymlink {
		f.blob = f.data
		return nil
	}
	var idx gitops.Hash
	if old.Exists {
		idx = old.Hash
	}
	f.blob = conv.ToGit(f.data, e.blobHasCR(idx))
	f.data = conv.ToWorktree(f.blob)
	return nil
}
