package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/google/jsonschema-go/jsonschema"
)

// The input schemas a client sees reject what the handler rejects, and
// accept what it accepts: a client that validates before calling (or a
// model constrained to the schema) never sends a call that fails on its
// arguments, and never is kept from one that would work.
func TestSchemasAgreeWithTheHandler(t *testing.T) {
	sha := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	cases := []struct {
		tool, args string
		ok         bool
	}{
		{"fs.read", `{"path":"a"}`, true},
		{"fs.read", `{}`, false},
		{"fs.read", `{"path":""}`, false},
		{"fs.read", `{"path":"a","line":0}`, false},
		{"fs.read", `{"path":"a","line":2,"lines":"1-2"}`, false},
		{"fs.read", `{"path":"a","range":"head:3","line":2}`, false},
		{"fs.read", `{"path":"a","lines":"1-2","encoding":"hex"}`, false},
		{"fs.read", `{"path":"a","lines":"1-2","encoding":"utf-8"}`, true},
		{"fs.read", `{"path":"a","encoding":"latin1"}`, false},
		{"fs.read", `{"path":"a","file":"b"}`, false},
		{"fs.diff", `{"leftPath":"a","rightPath":"b"}`, true},
		{"fs.diff", `{"leftPath":"a","rightContent":"x"}`, true},
		{"fs.diff", `{"leftPath":"a","rightContent":""}`, true},
		{"fs.diff", `{"leftPath":"a"}`, false},
		{"fs.diff", `{"leftPath":"a","rightPath":"b","rightContent":"x"}`, false},
		{"fs.write", `{"path":"a","mode":"overwrite","content":""}`, true},
		{"fs.write", `{"path":"a","mode":"replace","content":"x"}`, false},
		{"fs.write", `{"path":"a","content":"x"}`, false},
		{"fs.write", `{"path":"a","mode":"append","content":"x","expectedSha256":"` + sha + `"}`, true},
		{"fs.write", `{"path":"a","mode":"append","content":"x","expectedSha256":"abc"}`, false},
		{"fs.writeBatch", `{"files":[{"path":"a","content":"x"}]}`, true},
		{"fs.writeBatch", `{"files":[]}`, false},
		{"fs.writeBatch", `{"files":[{"path":"a"}]}`, false},
		{"fs.writeBatch", `{"files":[{"path":"a","content":"x","mode":"bad"}]}`, false},
		{"fs.chmod", `{"path":"a","mode":"755"}`, true},
		{"fs.chmod", `{"path":"a","mode":"rwx"}`, false},
		{"fs.mv", `{"fromPath":"a","toPath":"b"}`, true},
		{"fs.mv", `{"src":"a","dest":"b"}`, false},
		{"fs.ls", `{"path":"a","depth":0}`, false},
		{"fs.search", `{"path":".","query":"x","limit":5}`, true},
		{"fs.search", `{"path":".","query":""}`, false},
		{"process.run", `{"command":"go","args":["test"],"env":{"A":"1"},"timeoutMs":10}`, true},
		{"process.run", `{"command":"go","env":{"A":1}}`, false},
		{"process.run", `{"command":"go","timeoutMs":1.5}`, false},
		{"shell.exec", `{"command":"ls","args":["x"]}`, false},
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, d := range mcp.ToolDefs() {
		b, _ := json.Marshal(d.InputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve the schema: %v", d.Name, err)
		}
		schemas[d.Name] = rs
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if _, ok := d.InputSchema[k]; ok {
				t.Errorf("%s: a top-level %s, which the Anthropic API refuses", d.Name, k)
			}
		}
	}
	for _, c := range cases {
		var v any
		if err := json.Unmarshal([]byte(c.args), &v); err != nil {
			t.Fatal(err)
		}
		schemaErr := schemas[c.tool].Validate(v)
		_, callErr := mcp.ReadCall("id", c.tool, []byte(c.args))
		if (schemaErr == nil) != c.ok || (callErr == nil) != c.ok {
			t.Errorf("%s %s: schema says %v, handler says %v; want ok=%v", c.tool, c.args, schemaErr, callErr, c.ok)
		}
	}
}
