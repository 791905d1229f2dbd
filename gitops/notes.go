package gitops

import "fmt"

// NotesRef is the notes ref where autocoder keeps each step's raw
// instruction block: `git notes --ref autocoder show COMMIT` prints it.
const NotesRef = "refs/notes/autocoder"

// AddNote attaches text to commit under the notes ref ref, as `git notes
// --ref ... add -f` does: a new notes commit whose tree maps the commit's
// hex name to a blob of text, on top of the ref's current one, and the ref
// moved to it under git's lock with a reflog line. A note the commit
// already has is replaced. The tree is flat (git reads a flat notes tree
// and a fanned-out one alike, and fans out only past hundreds of notes);
// an existing fanned-out note of the same commit is removed, so the commit
// has one note.
func (r *Repo) AddNote(ref string, commit Hash, text []byte, who Signature, p *Private) error {
	tip, exists, err := r.ResolveRef(ref)
	if err != nil {
		return err
	}
	tree := ZeroHash
	var parents []Hash
	if exists {
		c, err := r.ReadCommit(tip)
		if err != nil {
			return fmt.Errorf("read %s: %w", ref, err)
		}
		tree, parents = c.Tree, []Hash{tip}
	}
	blob, err := r.WriteBlob(text)
	if err != nil {
		return err
	}
	hex := commit.String()
	changes := []Change{{Path: hex, Mode: 0o100644, Hash: blob}}
	if _, ok, err := r.Lookup(tree, hex[:2]+"/"+hex[2:]); err == nil && ok {
		changes = append(changes, Change{Path: hex[:2] + "/" + hex[2:], Delete: true})
	}
	newTree, err := r.EditTree(tree, changes)
	if err != nil {
		return err
	}
	c, err := r.WriteCommit(newTree, parents, who, who, "Notes added by 'autocoder'\n")
	if err != nil {
		return err
	}
	return r.UpdateRef(RefUpdate{Name: ref, Old: tip, New: c, Who: who, Message: "notes: Notes added by 'autocoder'"}, p)
}

// Note is the note of commit under ref, flat or fanned out; ok is false
// when it has none.
func (r *Repo) Note(ref string, commit Hash) (text []byte, ok bool, err error) {
	tip, exists, err := r.ResolveRef(ref)
	if err != nil || !exists {
		return nil, false, err
	}
	c, err := r.ReadCommit(tip)
	if err != nil {
		return nil, false, err
	}
	hex := commit.String()
	for _, path := range []string{hex, hex[:2] + "/" + hex[2:], hex[:2] + "/" + hex[2:4] + "/" + hex[4:]} {
		e, found, err := r.Lookup(c.Tree, path)
		if err != nil {
			return nil, false, err
		}
		if found {
			b, err := r.ReadBlob(e.Hash)
			return b, err == nil, err
		}
	}
	return nil, false, nil
}
