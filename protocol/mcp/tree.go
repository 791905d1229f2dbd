package mcp

import (
	"encoding/json"

	"github.com/autocoder/autocoder/protocol/tjson"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// node is a JSON value with its offset in the response, so that every
// argument error can point at the argument. encoding/json's own decoding
// loses offsets and silently keeps the last of two equal keys; this tree is
// built from its token stream instead.
type node struct {
	off  int
	kind byte // '{' object, '[' array, '"' string, 'n' number, 'b' bool, '0' null
	str  string
	num  json.Number
	b    bool
	keys []string // object keys in document order
	obj  map[string]*node
	// keyAt holds each key's offset, for errors about the name itself.
	keyAt map[string]int
	arr   []*node
	// dup is the first key written twice in this object or below it;
	// ownDup the first written twice in this object itself.
	dup, ownDup *node
}

// key returns a node standing for the key k of an object, so that an
// error about an argument's name points at the name.
func (n *node) key(k string) *node { return &node{off: n.keyAt[k], kind: '"', str: k} }

// kindName names a node's JSON type for messages.
func (n *node) kindName() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}

// treeReader builds the tree of a value that readValue has already
// validated with encoding/json, so it only has to follow the structure;
// encoding/json's token stream, which it replaces, was most of the time
// spent on a large response.
type treeReader struct {
	data []byte
	base int
	pos  int
}

// buildTree reads an already validated JSON value that starts at base in
// the document.
func buildTree(value []byte, base int) *node {
	r := &treeReader{data: value, base: base}
	return r.value()
}

// skip passes white space and the separators, which validation has checked.
func (r *treeReader) skip() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\r', '\n', ',', ':':
			r.pos++
		default:
			return
		}
	}
}

func (r *treeReader) value() *node {
	r.skip()
	n := &node{off: r.base + r.pos}
	switch c := r.data[r.pos]; c {
	case '{':
		r.pos++
		n.kind, n.obj, n.keyAt = '{', map[string]*node{}, map[string]int{}
		for {
			r.skip()
			if r.data[r.pos] == '}' {
				r.pos++
				break
			}
			koff := r.base + r.pos
			key := r.str()
			child := r.value()
			if child.dup != nil && n.dup == nil {
				n.dup = child.dup
			}
			if _, seen := n.obj[key]; seen {
				if n.ownDup == nil {
					n.ownDup = &node{off: koff, kind: '"', str: key}
					if n.dup == nil {
						n.dup = n.ownDup
					}
				}
				continue
			}
			n.keys = append(n.keys, key)
			n.obj[key] = child
			n.keyAt[key] = koff
		}
	case '[':
		r.pos++
		n.kind = '['
		for {
			r.skip()
			if r.data[r.pos] == ']' {
				r.pos++
				break
			}
			child := r.value()
			if child.dup != nil && n.dup == nil {
				n.dup = child.dup
			}
			n.arr = append(n.arr, child)
		}
	case '"':
		n.kind, n.str = '"', r.str()
	case 't':
		n.kind, n.b = 'b', true
		r.pos += 4
	case 'f':
		n.kind = 'b'
		r.pos += 5
	case 'n':
		n.kind = '0'
		r.pos += 4
	default:
		start := r.pos
		for r.pos < len(r.data) && strings.IndexByte("+-0123456789.eE", r.data[r.pos]) >= 0 {
			r.pos++
		}
		n.kind, n.num = 'n', json.Number(r.data[start:r.pos])
	}
	return n
}

// str reads the string at pos, decoding escapes (and replacing invalid
// UTF-8) exactly as encoding/json does.
func (r *treeReader) str() string {
	start := r.pos
	plain := true
	i := start + 1
	for ; r.data[i] != '"'; i++ {
		if c := r.data[i]; c == '\\' {
			plain = false
			i++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
	}
	r.pos = i + 1
	raw := r.data[start+1 : i]
	if plain {
		return string(raw)
	}
	return unquote(raw)
}

// unquote decodes the body of a validated JSON string exactly as
// encoding/json does: escapes, surrogate pairs, and U+FFFD for invalid
// UTF-8 and lone surrogates. (FuzzUnquote holds it to encoding/json.)
func unquote(s []byte) string {
	b := make([]byte, 0, len(s))
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\' && r+1 < len(s):
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := tjson.Hex4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					rr1 := tjson.Hex4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \\ / (validation admits no other)
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b)
}
