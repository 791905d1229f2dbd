// Package matcher locates the old text of an edit in a file and splices in the
// new text, and refuses to guess: an old text must occur exactly once, or be
// picked out by an identifier, or the edit fails with an error that says where
// the nearest text is or where every occurrence is.
//
// Start reading at ReplaceAll (a list of edits, applied in order). The
// tiers of tolerance are in tiers.go, the identifier heuristics in ident.go,
// the nearest-region search for hints in nearest.go, and the line-indexed
// document that keeps large files fast in doc.go. The engine (package txn)
// turns the typed errors of errors.go into feedback for the model.
//
// Rules that shape the output, all applied to the replacement text only:
//   - Line endings: the new text takes the line ending of the lines it
//     replaces ("\r\n" or "\n"), whatever the model wrote.
//   - Byte order mark: a UTF-8 BOM at the start of the file stays; one at the
//     start of the old or new text is ignored.
//   - Final newline: the file keeps its final newline, or its lack of one.
//     When a tolerant tier matches an old text ending in a newline against
//     the last line of a file that has none, a final newline of the new text
//     is dropped. An exact match is spliced literally, so an edit of the very
//     end of the file whose new text adds or removes the final newline does so.
//   - Indentation: when the old text matched with its indentation shifted, the
//     new text is shifted the same way (see Indentation); when it matched
//     only as levels (tabs against spaces), the new text is written in the
//     file's levels (see IndentLevels).
//   - Blank edges: when the old text matched only without its leading and
//     trailing blank lines, as many leading and trailing blank lines (at
//     most) are dropped from the new text.
package matcher

import (
	"bytes"
	"errors"
)

// Tier is how tolerant the match that located an old text had to be. The
// tiers are tried in order, a later one only when every earlier one found
// nothing; each must still find exactly one place.
type Tier int

// The tiers, strictest first. Each later tier also tolerates what the earlier
// ones do.
const (
	// Exact: the old text occurs byte for byte, anywhere (it may start and
	// end inside lines).
	Exact Tier = iota
	// LineEndings: equal once "\r\n" is read as "\n" on both sides.
	LineEndings
	// TrailingSpace: equal once spaces and tabs at the ends of lines are
	// ignored. An old text whose last line ends in white space must match
	// that line whole, so "x = 1 " never matches the start of "x = 10".
	TrailingSpace
	// Indentation: whole lines equal once every non-blank line is shifted by
	// the same indentation, made of one character (spaces or tabs, never a
	// mix of the two for one shift). The new text gets the same shift.
	Indentation
	// BlankEdges: equal (tolerating all of the above) once blank lines at the
	// start and end of the old text are dropped.
	BlankEdges
	// IndentLevels: whole lines equal once leading tabs and spaces are read
	// as indentation levels (a tab, or the old text's smallest step of
	// spaces, is one level; see tiers.go), with blank edges dropped when
	// they have to be. The new text is written in the file's indentation,
	// tabs where the file has tabs. An old text whose indentation mixes
	// tabs and spaces, or is not a whole number of levels, is not read.
	IndentLevels
)

var tierNames = [...]string{"exact", "line-endings", "trailing-space", "indentation", "blank-edges", "indent-levels"}

// String returns the tier's name as the feedback shows it.
func (t Tier) String() string {
	if t >= 0 && int(t) < len(tierNames) {
		return tierNames[t]
	}
	return "unknown"
}

// Edit is one replacement: Old must be located (see Tier) and becomes New.
// Identifier names the function or class the edit is about (for example
// "Tetris.__init__" or "parseArgs"); it picks one occurrence when Old occurs
// several times.
type Edit struct {
	Old, New, Identifier string
	// Anchors, Follows and AtEnd place the edits of formats that say where
	// a change goes besides its old text (apply_patch's "@@ def f" lines,
	// its chunks in file order, its "*** End of File"); see place.go.
	Anchors []string
	Follows bool
	AtEnd   bool
}

// Result says where an edit was applied.
type Result struct {
	Tier               Tier
	Start, End         int  // byte offsets of the replaced region in the input content
	StartLine, EndLine int  // 1-based lines of that region
	AlreadyApplied     bool // old absent, new present exactly once: nothing changed
	// AppliedAt lists the 1-based lines of the other occurrences of the
	// old text, where the edit was already applied (the new text is there,
	// holding them): the one occurrence left was taken as the place.
	AppliedAt []int
}

// ReplaceAll applies edits in order, each on the result of the previous one;
// each Result's offsets and lines refer to the content that edit was applied
// to. On error it returns *EditError{Index, Err} wrapping the typed error,
// out is nil and rs holds the results of the edits before the failing one.
//
// The file is indexed once, so a list of edits costs far less than as many
// Replace calls on a large file.
func ReplaceAll(content []byte, edits []Edit) (out []byte, rs []Result, err error) {
	if err := CheckText(content); err != nil {
		return nil, nil, err
	}
	d, pre := load(content)
	cursor := 0 // where the previous edit's new text ends (Edit.Follows)
	for i, e := range edits {
		r, err := applyAt(d, e, &cursor)
		if err != nil {
			return nil, rs, &EditError{Index: i, Err: err}
		}
		r.Start += len(pre)
		r.End += len(pre)
		rs = append(rs, r)
	}
	return append(pre, d.bytes()...), rs, nil
}

// load splits off a UTF-8 byte order mark, which is kept out of the document
// so that it can never be matched, replaced or lost.
func load(content []byte) (*doc, []byte) {
	var pre []byte
	if bytes.HasPrefix(content, bom) {
		pre = append([]byte{}, bom...)
		content = content[len(bom):]
	}
	return newDoc(content), pre
}

// applyAt locates one edit in d and splices it in. It takes the end of the previous edit's new text, which an
// edit that Follows searches from; it moves cursor past this edit's new text.
func applyAt(d *doc, e Edit, cursor *int) (Result, error) {
	old := bytes.TrimPrefix([]byte(e.Old), bom)
	nw := bytes.TrimPrefix([]byte(e.New), bom)
	if len(e.Anchors) > 0 || e.Follows || e.AtEnd {
		return placed(d, e, old, nw, cursor)
	}
	if len(old) == 0 {
		return Result{}, &EmptyOldError{}
	}
	if e.Old == e.New {
		return Result{}, &NoChangeError{}
	}
	if err := checkText("old text", old); err != nil {
		return Result{}, err
	}
	if err := checkText("new text", nw); err != nil {
		return Result{}, err
	}
	if r, ok := alreadyInside(d, old, nw); ok {
		*cursor = r.End
		return r, nil
	}
	m, err := locate(d, old, e.Identifier)
	var amb *AmbiguousMatchError
	if errors.As(err, &amb) {
		if u, at, ok := oneUnapplied(d, old, nw); ok {
			x, err := replacement(d, u, nw)
			if err != nil {
				return Result{}, err
			}
			r := result(d, u, false)
			r.AppliedAt = at
			d.splice(u.start, u.end, x)
			*cursor = u.start + len(x)
			return r, nil
		}
	}
	var nm *NoMatchError
	if errors.As(err, &nm) {
		// An edit sent twice must not fail the second time: when the old
		// text is gone and the new text is there exactly once, the edit is
		// already in the file.
		if len(bytes.TrimSpace(nw)) > 0 {
			if ms, _ := firstTier(d, nw); len(ms) == 1 {
				*cursor = ms[0].end
				return result(d, ms[0], true), nil
			}
		}
		nm.Nearest = nearest(d, old)
		return Result{}, nm
	}
	if err != nil {
		return Result{}, err
	}
	x, err := replacement(d, m, nw)
	if err != nil {
		return Result{}, err
	}
	r := result(d, m, false)
	start := m.start
	if m.virtualNL && len(x) == 0 && start > 0 && d.slice(start-1, start)[0] == '\n' {
		// The last lines of a file without a final newline deleted: the
		// line break before them goes too, so the file keeps its lack of
		// one (Cline leaves one: FORMATS.md 0).
		start--
		if start > 0 && d.slice(start-1, start)[0] == '\r' {
			start--
		}
	}
	d.splice(start, m.end, x)
	*cursor = start + len(x)
	return r, nil
}

// alreadyInside catches an edit sent twice whose new text contains its old
// text ("return 3" -> "return 30"): the old text is then still found, inside
// the new one, and replacing it again would write "return 300". When the new
// text is in the file exactly once and every occurrence of the old text lies
// inside it, the edit is already applied.
func alreadyInside(d *doc, old, nw []byte) (Result, bool) {
	if !bytes.Contains(nw, old) || len(bytes.TrimSpace(nw)) == 0 {
		return Result{}, false
	}
	ns, _ := firstTier(d, nw)
	if len(ns) != 1 {
		return Result{}, false
	}
	os, _ := firstTier(d, old)
	if len(os) == 0 {
		return Result{}, false
	}
	for _, m := range os {
		if m.start < ns[0].start || m.end > ns[0].end {
			return Result{}, false
		}
	}
	return result(d, ns[0], true), true
}

// oneUnapplied finds the place of an edit whose old text occurs several
// times when the edit is already applied at all of them but one: the new
// text contains the old one, and every occurrence of the old text but one
// lies inside an occurrence of the new text. That one is the place (seen in
// real plans: a model resends a plan after some of its identical edits were
// made). It returns the place and the lines of the applied occurrences.
func oneUnapplied(d *doc, old, nw []byte) (match, []int, bool) {
	if !bytes.Contains(nw, old) {
		return match{}, nil, false
	}
	ns, _ := firstTier(d, nw)
	if len(ns) == 0 {
		return match{}, nil, false
	}
	os, _ := firstTier(d, old)
	var left []match
	var at []int
	for _, m := range os {
		inside := false
		for _, n := range ns {
			if m.start >= n.start && m.end <= n.end {
				inside = true
				break
			}
		}
		if inside {
			at = append(at, d.lineOf(m.start)+1)
		} else {
			left = append(left, m)
		}
	}
	if len(left) != 1 {
		return match{}, nil, false
	}
	return left[0], at, true
}

func result(d *doc, m match, already bool) Result {
	return Result{
		Tier:           m.tier,
		Start:          m.start,
		End:            m.end,
		StartLine:      d.lineOf(m.start) + 1,
		EndLine:        d.lineOf(max(m.end-1, m.start)) + 1,
		AlreadyApplied: already,
	}
}

// locate runs the tiers in order and returns the one match of the first tier
// that finds any, resolving several with the identifier.
func locate(d *doc, old []byte, ident string) (match, error) {
	ms, tier := firstTier(d, old)
	switch {
	case len(ms) == 0:
		return match{}, &NoMatchError{}
	case len(ms) == 1:
		return ms[0], nil
	}
	amb := &AmbiguousMatchError{Tier: tier, Identifier: ident}
	for _, m := range ms {
		amb.Lines = append(amb.Lines, d.lineOf(m.start)+1)
	}
	if ident == "" {
		return match{}, amb
	}
	exts := identifierExtents(d, ident)
	var inside []match
	for _, x := range exts {
		amb.Defined = append(amb.Defined, x.def+1)
	}
	for _, m := range ms {
		sl, el := d.lineOf(m.start), d.lineOf(max(m.end-1, m.start))
		for _, x := range exts {
			if sl >= x.start && el <= x.end {
				inside = append(inside, m)
				amb.Inside = append(amb.Inside, sl+1)
				break
			}
		}
	}
	if len(inside) == 1 {
		return inside[0], nil
	}
	return match{}, amb
}

// replacement shapes the new text for the place it goes (see the package
// documentation for the rules). It fails only for an IndentLevels match
// whose new text cannot be read in the old text's levels.
func replacement(d *doc, m match, nw []byte) ([]byte, error) {
	x := bytes.ReplaceAll(nw, []byte("\r\n"), []byte("\n"))
	if m.levels != nil {
		// Before the blank edges are dropped, so that an error names the
		// line as the model numbers it.
		var err error
		if x, err = relevel(x, m.levels); err != nil {
			return nil, err
		}
	}
	if m.trimLead > 0 || m.trimTrail > 0 {
		x = trimBlankEdges(x, m.trimLead, m.trimTrail)
		// The trimmed old text ends with the newline of its last kept line,
		// so the new text must end with one too or it would swallow the
		// line ending of the file.
		if m.trimTrail > 0 && len(x) > 0 && x[len(x)-1] != '\n' {
			x = append(x, '\n')
		}
	}
	if m.shift != "" {
		x = reindent(x, m.shift, m.deeper)
	}
	if m.virtualNL {
		x = bytes.TrimSuffix(x, []byte("\n"))
	}
	if crlfAt(d, m.start) {
		x = bytes.ReplaceAll(x, []byte("\n"), []byte("\r\n"))
	}
	return x, nil
}

// crlfAt reports whether the line holding off ends in "\r\n"; the last line
// of a file, which has no ending, follows the line before it.
func crlfAt(d *doc, off int) bool {
	if d.numLines() == 0 {
		return false
	}
	for i := d.lineOf(off); i >= 0; i-- {
		l := d.line(i)
		if bytes.HasSuffix(l, []byte("\n")) {
			return bytes.HasSuffix(l, []byte("\r\n"))
		}
	}
	return false
}

// reindent adds shift to (deeper) or removes it from every non-blank line. A
// line indented less than the shift loses what it has of it.
func reindent(x []byte, shift string, deeper bool) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(x, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			out = append(out, l...)
			continue
		}
		if deeper {
			out = append(append(out, shift...), l...)
			continue
		}
		n := 0
		for n < len(shift) && n < len(l) && l[n] == shift[n] {
			n++
		}
		out = append(out, l[n:]...)
	}
	return out
}

// trimBlankEdges drops up to lead blank lines from the start of x and up to
// trail from its end.
func trimBlankEdges(x []byte, lead, trail int) []byte {
	ls := bytes.SplitAfter(x, []byte("\n"))
	if len(ls) > 0 && len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	for ; lead > 0 && len(ls) > 0 && len(bytes.TrimSpace(ls[0])) == 0; lead-- {
		ls = ls[1:]
	}
	for ; trail > 0 && len(ls) > 0 && len(bytes.TrimSpace(ls[len(ls)-1])) == 0; trail-- {
		ls = ls[:len(ls)-1]
	}
	return bytes.Join(ls, nil)
}
