package protocol

import (
	"github.com/autocoder/autocoder/protocol/acjson"
	"github.com/autocoder/autocoder/protocol/axon"
	"github.com/autocoder/autocoder/protocol/editorjson"
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/protocol/searchreplace"
	"github.com/autocoder/autocoder/protocol/wholefile"
	"github.com/autocoder/autocoder/step"
)

// writers are the feedback writers by dialect name (step.Step.Dialect).
var writers = map[string]func([]step.Result) []byte{
	"autocoder-json": acjson.Feedback,
	"axon":           axon.Feedback,
	"mcp":            mcp.Feedback,

	searchreplace.Dialect: searchreplace.Feedback,
	wholefile.Dialect:     wholefile.Feedback,
	editorjson.Dialect:    editorjson.Feedback,
}

// Feedback writes the executor's answer to a run in the dialect of each
// step: consecutive results of one dialect form one answer in that dialect,
// so a mixed response gets each part answered in its own format, in order.
// A result of an unreadable block is answered in the dialect of its block.
func Feedback(results []step.Result) []byte {
	var out []byte
	var run []step.Result
	cur := ""
	flush := func() {
		if len(run) == 0 {
			return
		}
		w, ok := writers[cur]
		if !ok {
			w = axon.Feedback
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, w(run)...)
		run = nil
	}
	for _, r := range results {
		d := ""
		switch {
		case r.Step != nil:
			d = r.Step.Dialect
		case r.ParseErr != nil:
			d = r.ParseErr.Dialect
		}
		if d != cur {
			flush()
			cur = d
		}
		run = append(run, r)
	}
	flush()
	return out
}
