package searchreplace

import (
	"bytes"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
)

// render writes a step back as a Roo apply_diff call (the one form that
// can quote any line: marker lines are escaped), or a write_to_file.
func render(op step.Op) string {
	var b strings.Builder
	if op.Kind == step.OpWrite && !op.NoReplace {
		b.WriteString("<write_to_file>\n<path>" + op.Path + "</path>\n<content>\n" + string(op.Content) + "</content>\n</write_to_file>\n")
		return b.String()
	}
	esc := func(s string) string {
		ls := strings.SplitAfter(s, "\n")
		for i, l := range ls {
			if rooEscaped().MatchString("\\" + l) {
				ls[i] = "\\" + l
			}
		}
		return strings.Join(ls, "")
	}
	b.WriteString("<apply_diff>\n<path>" + op.Path + "</path>\n<diff>\n")
	if op.Kind == step.OpWrite {
		b.WriteString("<<<<<<< SEARCH\n=======\n" + esc(string(op.Content)) + ">>>>>>> REPLACE\n")
	}
	for _, e := range op.Edits {
		b.WriteString("<<<<<<< SEARCH\n" + esc(e.Old) + "=======\n" + esc(e.New) + ">>>>>>> REPLACE\n")
	}
	b.WriteString("</diff>\n</apply_diff>\n")
	return b.String()
}

// renderable: content that quotes a call's own tags, a path the tags would
// trim, line-number prefixes (Roo drops them) and lines that start with a
// backslash (Roo's escape) do not survive a Roo call unchanged.
func renderable(op step.Op, r string) bool {
	if strings.Contains(r, "\r") || strings.Count(r, "</") != 3 || op.Path != strings.TrimSpace(op.Path) {
		return false
	}
	for _, l := range strings.Split(r, "\n") {
		if strings.HasPrefix(l, "\\\\") || numPrefix().MatchString(l) {
			return false
		}
	}
	var texts []string
	for _, e := range op.Edits {
		texts = append(texts, e.Old, e.New)
	}
	for _, l := range strings.Split(strings.Join(append(texts, string(op.Content)), ""), "\n") {
		b := []byte(l)
		if (xmlDivider(b) || xmlSearch(b) || xmlReplace(b) || looksLikeMarker(b)) && !rooEscaped().MatchString("\\"+l) {
			return false // a marker of Roo's set that Roo cannot escape
		}
	}
	return !strings.Contains(r, "\n\\\n")
}

// FuzzParse checks Parse's properties on any text: no panic, well-formed
// items (golden.CheckItems), every line of an edit's texts quoted from its
// block, and a step written back as a Cline call reads as the same op.
func FuzzParse(f *testing.F) {
	golden.SeedAnswers(f, "../testdata/formats/searchreplace")
	f.Fuzz(func(t *testing.T, text []byte) {
		items := Parse(text)
		golden.CheckItems(t, Dialect, text, items)
		for _, it := range items {
			if it.Step == nil {
				continue
			}
			block := text[it.Start:it.End]
			for _, op := range it.Step.Ops {
				texts := []string{string(op.Content)}
				for _, e := range op.Edits {
					texts = append(texts, e.Old, e.New)
				}
				for _, s := range texts {
					for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
						if !bytes.Contains(block, []byte(l)) {
							t.Fatalf("the line %q of an edit is not in its block %q", l, block)
						}
					}
				}
				r := render(op)
				if !renderable(op, r) {
					continue
				}
				back := Parse([]byte(r))
				if len(back) != 1 || back[0].Step == nil {
					t.Fatalf("%q rendered as %q does not read back: %+v", block, r, back)
				}
				got := back[0].Step.Ops[0]
				if got.Path != op.Path || !bytes.Equal(got.Content, op.Content) || len(got.Edits) != len(op.Edits) || got.NoReplace != op.NoReplace {
					t.Fatalf("%q rendered as %q reads back as %+v, not %+v", block, r, got, op)
				}
				for i := range got.Edits {
					if got.Edits[i].Old != op.Edits[i].Old || got.Edits[i].New != op.Edits[i].New {
						t.Fatalf("edit %d reads back as %+v, not %+v", i, got.Edits[i], op.Edits[i])
					}
				}
			}
		}
	})
}
