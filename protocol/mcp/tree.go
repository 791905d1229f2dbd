package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
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

type treeReader struct {
	dec  *json.Decoder
	data []byte
	base int
}

// buildTree reads an already validated JSON value that starts at base in
// the document.
func buildTree(value []byte, base int) *node {
	r := &treeReader{dec: json.NewDecoder(bytes.NewReader(value)), data: value, base: base}
	r.dec.UseNumber()
	return r.value()
}

func (r *treeReader) token() (json.Token, int) {
	off := int(r.dec.InputOffset())
	for off < len(r.data) && strings.IndexByte(" \t\r\n,:", r.data[off]) >= 0 {
		off++
	}
	t, err := r.dec.Token()
	if err != nil {
		// The value was decoded once already; a failure here is a bug.
		panic("mcp: re-reading validated JSON: " + err.Error())
	}
	return t, r.base + off
}

func (r *treeReader) value() *node {
	t, off := r.token()
	return r.fill(t, off)
}

func (r *treeReader) fill(t json.Token, off int) *node {
	n := &node{off: off}
	switch v := t.(type) {
	case json.Delim:
		if v == '{' {
			n.kind, n.obj, n.keyAt = '{', map[string]*node{}, map[string]int{}
			for r.dec.More() {
				kt, koff := r.token()
				key := kt.(string)
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
		} else {
			n.kind = '['
			for r.dec.More() {
				child := r.value()
				if child.dup != nil && n.dup == nil {
					n.dup = child.dup
				}
				n.arr = append(n.arr, child)
			}
		}
		r.token() // the closing delimiter
	case string:
		n.kind, n.str = '"', v
	case json.Number:
		n.kind, n.num = 'n', v
	case bool:
		n.kind, n.b = 'b', v
	default:
		n.kind = '0'
	}
	return n
}
