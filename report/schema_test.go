package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
	"github.com/google/jsonschema-go/jsonschema"
)

// The JSON Schema of every --format json output is made from the types
// that write it (jsonschema.ForType, with the field descriptions of their
// jsonschema tags), so it cannot drift from the output; schema/ holds it
// as golden files, so a change to what scripts read shows in review as a
// diff of the schema (go test ./report -update rewrites them).
// cmd/autocoder's TestJSONOutputsMatchTheirSchemas checks the real output
// of each command against these files.
func TestJSONSchemasGolden(t *testing.T) {
	for _, o := range jsonOutputs {
		t.Run(o.name, func(t *testing.T) {
			golden.Check(t, filepath.Join("schema", o.name+".schema.json"), schemaText(t, o))
		})
	}
}

// jsonOutputs are the outputs of --format json: the command, what it
// writes, and the types it writes (one of them: several).
var jsonOutputs = []struct {
	name, title, desc string
	types             []reflect.Type
}{
	{"apply", "autocoder apply --format json",
		"What apply did (also with --dry-run): the result of every step, in the response's order, and the exit code. A response with no readable block gives the errors of its blocks instead.",
		[]reflect.Type{reflect.TypeFor[runJSON](), reflect.TypeFor[unreadableJSON]()}},
	{"parse", "autocoder parse --format json",
		"The steps a response holds, as autocoder reads them, with the repairs the reader made and the errors of the blocks it could not read. Content is text; binary content is base64, marked so.",
		[]reflect.Type{reflect.TypeFor[parseJSON]()}},
	{"log", "autocoder log --format json", "The commits of the current work branch, newest first.",
		[]reflect.Type{reflect.TypeFor[logJSON]()}},
	{"undo", "autocoder undo --format json", "The steps undo took away.",
		[]reflect.Type{reflect.TypeFor[undoneJSON]()}},
	{"redo", "autocoder redo --format json", "The step redo put back.",
		[]reflect.Type{reflect.TypeFor[redoneJSON]()}},
	{"show", "autocoder show --format json", "One step: its commit, message, files and the block the model wrote, and the turn of autocoder run it came from.",
		[]reflect.Type{reflect.TypeFor[showJSON]()}},
	{"sessions", "autocoder sessions --format json", "The worktree sessions of the repository: running, or kept for the user.",
		[]reflect.Type{reflect.TypeFor[sessionsJSON]()}},
}

// enums are the values of the string types whose values are a closed set.
var enums = map[reflect.Type][]any{
	reflect.TypeFor[step.Status](): {step.StatusApplied, step.StatusUnchanged, step.StatusPlanned, step.StatusFailed,
		step.StatusSkipped, step.StatusRead, step.StatusRolledBack},
	reflect.TypeFor[step.OpKind](): {step.OpWrite, step.OpAppend, step.OpReplace, step.OpDelete, step.OpMove, step.OpMkdir,
		step.OpRmdir, step.OpChmod, step.OpRead, step.OpList, step.OpSearch, step.OpDiff, step.OpEcho, step.OpStatus},
	reflect.TypeFor[step.CheckKind](): {step.CheckFilesExist, step.CheckCwdMatch},
	reflect.TypeFor[SessionState]():   {SessionRunning, SessionKept},
}

// schemaText is the schema of o, as the golden file holds it.
func schemaText(t *testing.T, o struct {
	name, title, desc string
	types             []reflect.Type
}) []byte {
	t.Helper()
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{}}
	for typ, vals := range enums {
		opts.TypeSchemas[typ] = &jsonschema.Schema{Type: "string", Enum: vals}
	}
	var alts []*jsonschema.Schema
	for _, typ := range o.types {
		s, err := jsonschema.ForType(typ, opts)
		if err != nil {
			t.Fatal(err)
		}
		alts = append(alts, s)
	}
	root := alts[0]
	if len(alts) > 1 {
		root = &jsonschema.Schema{OneOf: alts}
	}
	body, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// What the schema is about comes first, where a person starts reading
	// (jsonschema.Schema writes its keywords in its own order).
	head, err := json.MarshalIndent(map[string]string{"$schema": "https://json-schema.org/draft/2020-12/schema"}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	b = append(b, bytes.TrimSuffix(head, []byte("\n}"))...)
	for _, kv := range [][2]string{{"title", o.title}, {"description", o.desc}} {
		v, _ := json.Marshal(kv[1])
		b = fmt.Appendf(b, ",\n  %q: %s", kv[0], v)
	}
	b = append(b, ',')
	b = append(b, bytes.TrimPrefix(body, []byte("{"))...)
	// The schema must be one a validator takes.
	var back jsonschema.Schema
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if _, err := back.Resolve(nil); err != nil {
		t.Fatalf("%s: %v", o.name, err)
	}
	return append(b, '\n')
}
