package matcher

import (
	"bytes"
	"strings"
)

// The identifier heuristics know no language. A definition is a line where
// the name follows a defining keyword (def, func, class, fn, …), or a Go
// receiver, or is followed by a parameter list and an opening brace; its
// extent is found by brace balance when a "{" opens the body, else by
// indentation (Python, Ruby, YAML-like layouts). They only ever narrow a
// choice among exact occurrences, so a wrong guess yields an
// AmbiguousMatchError, never an edit in the wrong place.

// extent is a definition's lines, 0-based and inclusive.
type extent struct {
	def        int // the line naming the definition
	start, end int // start includes decorators and comments just above def
}

var defKeywords = map[string]bool{
	"def": true, "func": true, "function": true, "fn": true, "class": true,
	"struct": true, "interface": true, "enum": true, "trait": true, "impl": true,
	"type": true, "module": true, "namespace": true, "sub": true, "proc": true,
	"macro": true, "record": true, "object": true, "union": true, "fun": true,
	"method": true, "property": true, "defn": true, "let": true, "const": true, "var": true,
}

// callKeywords precede a name that is called, not defined.
var callKeywords = map[string]bool{
	"return": true, "new": true, "await": true, "throw": true, "yield": true,
	"else": true, "case": true, "if": true, "while": true, "for": true, "switch": true,
	"not": true, "and": true, "or": true, "in": true, "go": true, "defer": true, "print": true,
}

// splitIdentifier splits "A.B", "A::B" or "A#B" into its components.
func splitIdentifier(id string) []string {
	id = strings.NewReplacer("::", ".", "#", ".", "->", ".").Replace(strings.TrimSpace(id))
	var out []string
	for _, c := range strings.Split(id, ".") {
		c = strings.TrimSpace(strings.TrimSuffix(c, "()"))
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// identifierExtents returns the extents of every definition of the
// identifier; for a dotted name each component must be defined inside the
// one before it, or qualified by it on its own line (func (t *T) name,
// T::name, T.prototype.name = …).
func identifierExtents(d *doc, ident string) []extent {
	comps := splitIdentifier(ident)
	if len(comps) == 0 {
		return nil
	}
	return extentsOf(d, comps)
}

func extentsOf(d *doc, comps []string) []extent {
	name := comps[len(comps)-1]
	qual := ""
	var outer []extent
	if len(comps) > 1 {
		qual = comps[len(comps)-2]
		outer = extentsOf(d, comps[:len(comps)-1])
	}
	var out []extent
	for _, i := range linesContaining(d, []byte(name)) {
		ok, qualified := isDefinition(d, i, name, qual)
		if !ok {
			continue
		}
		if len(comps) > 1 && !qualified {
			in := false
			for _, o := range outer {
				if i > o.def && i <= o.end {
					in = true
					break
				}
			}
			if !in {
				continue
			}
		}
		if end, ok := definitionEnd(d, i); ok {
			out = append(out, extent{def: i, start: extendUp(d, i), end: end})
		}
	}
	return out
}

// linesContaining lists the lines that hold s, in order, each once.
func linesContaining(d *doc, s []byte) []int {
	var out []int
	for bi, b := range d.blocks {
		for p := 0; ; {
			i := bytes.Index(b.buf[p:], s)
			if i < 0 {
				break
			}
			l := d.lineOf(d.byteBase[bi] + p + i)
			if len(out) == 0 || out[len(out)-1] != l {
				out = append(out, l)
			}
			p += i + len(s)
		}
	}
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func lastWord(s string) string {
	s = strings.TrimRight(s, " \t")
	i := len(s)
	for i > 0 && isIdentByte(s[i-1]) {
		i--
	}
	return s[i:]
}

// isDefinition reports whether line i defines name, and whether the line
// itself qualifies it with qual (a method defined outside its type).
func isDefinition(d *doc, i int, name, qual string) (ok, qualified bool) {
	line := string(d.content(i))
	for p := 0; ; {
		k := strings.Index(line[p:], name)
		if k < 0 {
			return false, false
		}
		s, e := p+k, p+k+len(name)
		p = e
		if s > 0 && isIdentByte(line[s-1]) || e < len(line) && isIdentByte(line[e]) {
			continue // part of a longer name
		}
		pre := strings.TrimRight(line[:s], " \t")
		post := strings.TrimLeft(line[e:], " \t")
		if qual != "" && (strings.HasSuffix(pre, qual+"::") || strings.HasSuffix(pre, qual+".") ||
			strings.HasSuffix(pre, qual+".prototype.")) && bodyFollows(d, i, post) {
			return true, true
		}
		if strings.HasPrefix(strings.TrimSpace(pre), "func") && strings.HasSuffix(pre, ")") {
			// Go method: func (r *T) name(
			recv := pre[strings.LastIndex(pre, "(")+1:]
			return true, qual != "" && lastWord(strings.TrimSuffix(recv, ")")) == lastWord(qual)
		}
		w := lastWord(pre)
		if defKeywords[w] {
			if w == "let" || w == "const" || w == "var" {
				// Only a function bound to a name defines it.
				if strings.HasPrefix(post, "=") && (strings.Contains(post, "=>") || strings.Contains(post, "function")) {
					return true, false
				}
				continue
			}
			return true, false
		}
		if strings.HasPrefix(post, "(") && !callKeywords[w] && !strings.HasSuffix(pre, ".") &&
			!strings.HasSuffix(pre, "=") && !strings.HasSuffix(pre, "(") && !strings.HasSuffix(pre, ",") && bodyFollows(d, i, post) {
			return true, false
		}
		if (strings.HasPrefix(post, "=") && !strings.HasPrefix(post, "==") || strings.HasPrefix(post, ":")) &&
			(strings.Contains(post, "function") || strings.Contains(post, "=>")) {
			return true, false
		}
	}
}

// bodyFollows reports whether a "{" opens a body at the end of this line or
// at the start of the next non-blank one.
func bodyFollows(d *doc, i int, post string) bool {
	if strings.HasSuffix(strings.TrimSpace(stripLineComment(post)), "{") {
		return true
	}
	for j := i + 1; j < d.numLines() && j <= i+3; j++ {
		t := strings.TrimSpace(string(d.content(j)))
		if t != "" {
			return strings.HasPrefix(t, "{")
		}
	}
	return false
}

func stripLineComment(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		return s[:i]
	}
	return s
}

// definitionEnd finds the last line of the definition on line i: by braces
// when a "{" opens it within a few lines, by indentation when its header ends
// in ":" or no brace comes. A ";" before either means a declaration only.
func definitionEnd(d *doc, i int) (int, bool) {
	n := d.numLines()
	for j := i; j < n && j < i+30; j++ {
		code := codeOnly(string(d.content(j)))
		bi := strings.IndexByte(code, '{')
		si := strings.IndexByte(code, ';')
		if bi >= 0 && (si < 0 || bi < si) {
			return braceEnd(d, j, bi), true
		}
		if si >= 0 && !strings.HasSuffix(strings.TrimSpace(code), ":") {
			return 0, false
		}
		if strings.HasSuffix(strings.TrimRight(code, " \t"), ":") {
			return indentEnd(d, i, j), true
		}
	}
	return indentEnd(d, i, i), true
}

// codeOnly blanks string and character literals and drops a trailing
// comment, so that braces inside them are not counted.
func codeOnly(s string) string {
	b := []byte(s)
	for k := 0; k < len(b); k++ {
		switch c := b[k]; {
		case c == '/' && k+1 < len(b) && b[k+1] == '/', c == '#' && (k == 0 || b[k-1] == ' ' || b[k-1] == '\t'):
			return string(b[:k])
		case c == '"' || c == '`' || c == '\'':
			end := -1
			for q := k + 1; q < len(b); q++ {
				if b[q] == '\\' {
					q++
					continue
				}
				if b[q] == c {
					end = q
					break
				}
			}
			// A quote closed far away is a Rust lifetime or an apostrophe.
			if end < 0 || c == '\'' && end-k > 4 {
				continue
			}
			for q := k + 1; q < end; q++ {
				b[q] = ' '
			}
			k = end
		}
	}
	return string(b)
}

// braceEnd returns the line where the brace opened at line j, column col,
// closes (the last line when it never does).
func braceEnd(d *doc, j, col int) int {
	depth := 0
	for ; j < d.numLines(); j++ {
		code := codeOnly(string(d.content(j)))
		if col > 0 {
			code = code[col:]
			col = 0
		}
		for k := 0; k < len(code); k++ {
			switch code[k] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					return j
				}
			}
		}
	}
	return d.numLines() - 1
}

// indentEnd returns the last non-blank line, after the header ending on line
// h, indented deeper than the definition on line i.
func indentEnd(d *doc, i, h int) int {
	ind := leadLen(d.content(i))
	end := h
	for j := h + 1; j < d.numLines(); j++ {
		l := d.content(j)
		if isBlank(l) {
			continue
		}
		if leadLen(l) <= ind {
			break
		}
		end = j
	}
	return end
}

// extendUp includes the decorators and comments right above a definition.
func extendUp(d *doc, i int) int {
	ind := leadLen(d.content(i))
	for i > 0 {
		l := d.content(i - 1)
		t := bytes.TrimSpace(l)
		if leadLen(l) != ind || len(t) == 0 {
			break
		}
		if !(t[0] == '@' || t[0] == '#' || bytes.HasPrefix(t, []byte("//")) || bytes.HasPrefix(t, []byte("/*")) || t[0] == '*') {
			break
		}
		i--
	}
	return i
}
