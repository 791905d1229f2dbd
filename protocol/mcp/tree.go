package mcp

import (
	"encoding/json"

	"github.com/autocoder/autocoder/protocol/tjson"
)

// node is a JSON value with its offset in the response, so that every
// argument error can point at the argument; it is the request's view of the
// tree that tjson's strict reader returns (buildTree), with objects indexed
// by key and keys written twice recorded.
type node struct {
	off  int
	kind tjson.Kind
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
func (n *node) key(k string) *node { return &node{off: n.keyAt[k], kind: tjson.String, str: k} }

// kindName names a node's JSON type for messages.
func (n *node) kindName() string {
	switch n.kind {
	case tjson.Object:
		return "an object"
	case tjson.Array:
		return "an array"
	case tjson.String:
		return "a string"
	case tjson.Number:
		return "a number"
	case tjson.Bool:
		return "a boolean"
	}
	return "null"
}

// buildTree makes the request's view of a value that tjson's strict reader
// read. Of a key written twice the first is kept and recorded as a dup:
// the request is refused for it, since JSON.parse would silently keep the
// last and encoding/json too.
func buildTree(t *tjson.Node) *node {
	n := &node{off: t.Pos.Offset}
	switch t.Kind {
	case tjson.Object:
		n.kind, n.obj, n.keyAt = tjson.Object, make(map[string]*node, len(t.Members)), make(map[string]int, len(t.Members))
		for _, m := range t.Members {
			child := buildTree(m.Value)
			if child.dup != nil && n.dup == nil {
				n.dup = child.dup
			}
			if _, seen := n.obj[m.Key]; seen {
				if n.ownDup == nil {
					n.ownDup = &node{off: m.KeyPos.Offset, kind: tjson.String, str: m.Key}
					if n.dup == nil {
						n.dup = n.ownDup
					}
				}
				continue
			}
			n.keys = append(n.keys, m.Key)
			n.obj[m.Key] = child
			n.keyAt[m.Key] = m.KeyPos.Offset
		}
	case tjson.Array:
		n.kind = tjson.Array
		n.arr = make([]*node, 0, len(t.Elems))
		for _, e := range t.Elems {
			child := buildTree(e)
			if child.dup != nil && n.dup == nil {
				n.dup = child.dup
			}
			n.arr = append(n.arr, child)
		}
	case tjson.String:
		n.kind, n.str = tjson.String, t.Text
	case tjson.Number:
		n.kind, n.num = tjson.Number, json.Number(t.Text)
	case tjson.Bool:
		n.kind, n.b = tjson.Bool, t.Bool
	default:
		n.kind = tjson.Null
	}
	return n
}
