package searchreplace

import (
	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
)

// Parse reads text on its own, as protocol reads it with the other
// readers: the tests' way in.
func Parse(text []byte) []step.Item { return ParseText(fence.NewText(text)) }
