package tjson

// Functions only the tests use: the binary does not need them (deadcode),
// so they live beside the tests that do.

// Value converts the tree to the Go values encoding/json produces when it
// decodes into an `any`: nil, bool, float64, string, []any, map[string]any.
func (n *Node) Value() any {
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return n.Num
	case String:
		return n.Text
	case Array:
		a := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			a[i] = e.Value()
		}
		return a
	case Object:
		m := make(map[string]any, len(n.Members))
		for _, mem := range n.Members {
			m[mem.Key] = mem.Value.Value()
		}
		return m
	}
	return nil
}

// Parse reads one JSON value starting at start.Offset (leading white space
// and comments skipped) and returns it as encoding/json would decode it into
// an `any`, the byte offset just after the value, and the repairs it needed.
// start gives the document position of start.Offset, so that every position
// reported is in document coordinates.
func Parse(data []byte, start Pos) (value any, end int, repairs []Repair, err error) {
	n, end, repairs, err := ParseNode(data, start, nil)
	if err != nil {
		return nil, end, repairs, err
	}
	return n.Value(), end, repairs, nil
}
