package txn

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// addNote stores the step's raw block as a git note on its commit
// (gitops.NotesRef), so `git notes --ref autocoder show` and `autocoder
// show` say what the model wrote. The step is committed already: a note
// that cannot be written is a warning, not a failure.
func (e *Engine) addNote(commit gitops.Hash, s *step.Step) {
	if s.Raw == "" {
		return
	}
	_, who, err := e.identity()
	if err == nil {
		text := s.Raw
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		err = e.repo.AddNote(gitops.NotesRef, commit, []byte(text), who, e.priv)
	}
	if err != nil {
		fmt.Fprintf(e.opts.Log, "autocoder: warning: step %s: its block was not stored as a note on %s: %v\n", s.ID, commit.String()[:12], err)
	}
}

// resetNotes moves the notes ref back to where a run found it, when the run
// took its steps back: their notes go with them.
func (e *Engine) resetNotes(to gitops.Hash) {
	cur, _, err := e.repo.ResolveRef(gitops.NotesRef)
	if err != nil || cur == to {
		return
	}
	_, who, err := e.identity()
	if err == nil {
		err = e.repo.UpdateRef(gitops.RefUpdate{Name: gitops.NotesRef, Old: cur, New: to, Who: who,
			Message: "autocoder: notes of steps taken back"}, e.priv)
	}
	if err != nil {
		fmt.Fprintf(e.opts.Log, "autocoder: warning: the notes of the steps taken back stay in %s: %v\n", gitops.NotesRef, err)
	}
}
