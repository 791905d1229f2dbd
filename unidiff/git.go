package unidiff

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/textkind"
)

// Git's file modes, as a patch header writes them. A mode of 0 means the
// file does not exist on that side, as in git's own raw diff format.
const (
	ModeFile    uint32 = 0o100644
	ModeExec    uint32 = 0o100755
	ModeSymlink uint32 = 0o120000
)

// File returns one file's patch in git's format: the "diff --git a/… b/…"
// line, the headers for a new file ("new file mode"), a deleted one
// ("deleted file mode"), a mode change ("old mode"/"new mode") or a rename
// ("rename from"/"rename to"), then "---"/"+++" and the hunks with three
// lines of context. oldMode 0 means the file is new, newMode 0 that it is
// deleted. Concatenated, the patches of several files are one patch that
// git apply and patch -p1 accept. It returns "" when nothing changes.
//
// Binary content (textkind.Binary: a NUL byte anywhere, not only in git's
// first 8000 bytes, since a patch is text that must apply) is written as
// git writes a binary change without --binary ("Binary files … differ"):
// readable, but not applicable.
func File(oldPath, newPath string, oldData, newData []byte, oldMode, newMode uint32) string {
	if oldMode == 0 && newMode == 0 {
		return ""
	}
	if oldMode == 0 {
		oldPath, oldData = newPath, nil
	}
	if newMode == 0 {
		newPath, newData = oldPath, nil
	}
	if oldPath == newPath && oldMode == newMode && bytes.Equal(oldData, newData) {
		return ""
	}
	a, b := quotePath("a/"+oldPath), quotePath("b/"+newPath)
	var h strings.Builder
	fmt.Fprintf(&h, "diff --git %s %s\n", a, b)
	switch {
	case oldMode == 0:
		fmt.Fprintf(&h, "new file mode %06o\n", newMode)
	case newMode == 0:
		fmt.Fprintf(&h, "deleted file mode %06o\n", oldMode)
	case oldMode != newMode:
		fmt.Fprintf(&h, "old mode %06o\nnew mode %06o\n", oldMode, newMode)
	}
	if oldMode != 0 && newMode != 0 && oldPath != newPath {
		fmt.Fprintf(&h, "rename from %s\nrename to %s\n", quotePath(oldPath), quotePath(newPath))
	}
	from, to := a, b
	if oldMode == 0 {
		from = "/dev/null"
	}
	if newMode == 0 {
		to = "/dev/null"
	}
	if textkind.Binary(oldData, 0) >= 0 || textkind.Binary(newData, 0) >= 0 {
		if !bytes.Equal(oldData, newData) {
			fmt.Fprintf(&h, "Binary files %s and %s differ\n", from, to)
		}
		return h.String()
	}
	h.WriteString(Unified(tabbed(from), tabbed(to), string(oldData), string(newData), DefaultContext))
	return h.String()
}

// tabbed is a "---"/"+++" name as git writes it: followed by a tab when
// it holds a space (diff.c), since patch(1) reads a name up to the first
// white space otherwise and "+++ b/src/main.go b/x" would patch
// src/main.go. git apply and patch both end the name at the tab.
func tabbed(name string) string {
	if strings.Contains(name, " ") {
		return name + "\t"
	}
	return name
}

// quotePath quotes a path as git does when it holds a control character,
// a double quote or a backslash (C-style, in double quotes), so that a
// newline in a name cannot end a header line. Other bytes, UTF-8 included,
// are written as they are: git apply reads both forms.
func quotePath(p string) string {
	need := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == '"' || c == '\\' || c == 0x7f {
			need = true
			break
		}
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
