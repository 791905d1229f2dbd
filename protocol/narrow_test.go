package protocol

import (
	"strings"
	"testing"

	"github.com/autocoder/autocoder/step"
)

// TestListingsSayHowToNarrowInTheirDialect: every dialect's listing and
// search ops carry the advice a cut output ends with (step.Op.Narrow),
// naming that dialect's own operation, never another's.
func TestListingsSayHowToNarrowInTheirDialect(t *testing.T) {
	t.Parallel()
	cases := []struct{ text, own string }{
		{"#####--\n" + `{"metadata":{"step_id":"l"},"type":"operate","file_operations":[{"action_type":"list_tree","path":"."}]}` + "\n--#####\n", "list_tree"},
		{"~~~~~act\nlist_files src\n~~~~~\n", "list_files"},
		{"~~~~~act\nsearch_files TODO src\n~~~~~\n", "search_files"},
		{"```mcp-request\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"."}}}` + "\n```\n", "fs.ls"},
		{"```mcp-request\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs.search","arguments":{"path":".","query":"x"}}}` + "\n```\n", "fs.search"},
	}
	others := []string{"list_tree", "list_files", "search_files", "fs.ls", "fs.search"}
	for _, c := range cases {
		items := Parse([]byte(c.text))
		if len(items) != 1 || items[0].Step == nil || len(items[0].Step.Ops) != 1 {
			t.Fatalf("%s: %+v", c.own, items)
		}
		op := items[0].Step.Ops[0]
		if op.Kind != step.OpList && op.Kind != step.OpSearch || !strings.Contains(op.Narrow, c.own) {
			t.Errorf("%s: the advice %q does not name %s", c.own, op.Narrow, c.own)
		}
		for _, o := range others {
			if o != c.own && strings.Contains(op.Narrow, o) {
				t.Errorf("%s: the advice %q names %s, another dialect's", c.own, op.Narrow, o)
			}
		}
	}
}
