// Package mcp reads and answers the FlyCode MCP dialect: JSON-RPC 2.0
// requests in ```mcp-request code blocks (DIALECTS.md §2, seed 002).
//
// Start with Parse, which finds the blocks (find.go: fences, found with
// protocol/fence, and the forms text copied from chat pages takes), reads
// each request with protocol/tjson's strict reader (tree.go is the
// request's view of that tree) and turns it into a step.Step (this file;
// the tool table with every argument contract is in tools.go). Feedback (feedback.go) writes the executor's answer: one
// ```mcp-response block per request, with the same id.
package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autocoder/autocoder/step"

	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/suggest"
)

// Dialect is the value of step.Step.Dialect and step.ParseError.Dialect.
const Dialect = "mcp"

// AppCodes of the errors this package writes (the reference's names).
const (
	CodeInvalidInput  = "INVALID_INPUT"
	CodeForbidden     = "FORBIDDEN"
	CodeNotFound      = "NOT_FOUND"
	CodeUnauthorized  = "UNAUTHORIZED"
	CodePolicyBlocked = "POLICY_BLOCKED"
	CodeConflict      = "CONFLICT"
	CodeNotSupported  = "NOT_SUPPORTED"
	CodeInternal      = "INTERNAL_ERROR"
	CodeNotExecuted   = "NOT_EXECUTED" // autocoder's own: skipped after an earlier failure
)

// Request is this dialect's record of one request, kept in Step.Source and
// ParseError.Source so that the feedback can answer with the same id.
type Request struct {
	// ID is the JSON-RPC id exactly as written ("call-001" with its quotes,
	// or 7); JSON null when it is missing or could not be read.
	ID json.RawMessage `json:"id"`
	// Method is initialize, tools/list or tools/call (as written when it
	// is none of these).
	Method string `json:"method,omitempty"`
	// Tool is the tool's dotted name (fs.read), also when the request used
	// the underscore form (fs_read).
	Tool string `json:"tool,omitempty"`
	// AppCode is set on the record of a request that could not be read:
	// INVALID_INPUT.
	AppCode string `json:"appCode,omitempty"`
}

// Parse finds every mcp-request block in text and reads each into an item,
// in document order: a *step.Step for a valid request (Dialect "mcp", ID the
// JSON-RPC id as text), or a *step.ParseError whose Source is the *Request
// as far as it could be read. initialize and tools/list give steps with no
// ops; each tools/call gives one step. Start and End are byte offsets in
// text; positions are 1-based lines and columns counted in characters.
// Text may use CRLF line endings.
func Parse(text []byte) []step.Item {
	if !mayHold(text) {
		return nil
	}
	d := newDoc(text)
	var items []step.Item
	for _, b := range findBlocks(d) {
		item := step.Item{Start: b.start, End: b.end}
		if b.err != nil {
			b.err.Source = &Request{ID: null, AppCode: CodeInvalidInput}
			item.Err = b.err
		} else if st, err := readRequest(d, &b); err != nil {
			item.Err = err
		} else {
			item.Step = st
		}
		items = append(items, item)
	}
	return items
}

var null = json.RawMessage("null")

// reqReader reads one request; req fills in as it goes, so that an error
// found late still answers the right id.
type reqReader struct {
	d   *doc
	req Request
}

// invalid is an INVALID_INPUT error at a node.
type invalid struct {
	off       int
	msg, hint string
}

func (e *invalid) Error() string { return e.msg }

func fail(n *node, hint, format string, args ...any) error {
	return &invalid{off: n.off, msg: fmt.Sprintf(format, args...), hint: hint}
}

func readRequest(d *doc, b *block) (*step.Step, *step.ParseError) {
	r := &reqReader{d: d, req: Request{ID: null}}
	root := b.tree
	st, err := r.read(root, b)
	if err != nil {
		var iv *invalid
		if !errors.As(err, &iv) {
			iv = &invalid{off: root.off, msg: err.Error()}
		}
		r.req.AppCode = CodeInvalidInput
		return nil, &step.ParseError{Dialect: Dialect, Pos: d.pos(iv.off), Msg: iv.msg,
			Quote: d.quote(iv.off), Fix: iv.hint, Source: &r.req}
	}
	return st, nil
}

const template = `{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"…"}}}`

func (r *reqReader) read(root *node, b *block) (*step.Step, error) {
	// The id first: every later error is answered with it.
	if id, ok := root.obj["id"]; ok {
		switch id.kind {
		case tjson.String:
			r.req.ID, _ = json.Marshal(id.str)
			if id.str == "" {
				// The id names the step and its commit trailer.
				return nil, fail(id, `give a non-empty id, e.g. "call-001"`, "id is empty")
			}
		case tjson.Number:
			r.req.ID = json.RawMessage(id.num.String())
		default:
			return nil, fail(id, `write the id as a string ("call-001") or a number`, "id is %s; it must be a string or a number", id.kindName())
		}
	}
	if root.ownDup != nil {
		return nil, fail(root.ownDup, "write each key once", "the key %q is written twice", root.ownDup.str)
	}
	for _, k := range root.keys {
		switch k {
		case "jsonrpc", "id", "method", "params":
		default:
			if !strings.HasPrefix(k, "__") {
				return nil, fail(root.key(k), `a request has only jsonrpc, id, method and params; tool arguments go in params.arguments`,
					"unknown member %q in the request", k)
			}
		}
	}
	v, ok := root.obj["jsonrpc"]
	if !ok || v.kind != tjson.String || v.str != "2.0" {
		at := root
		if ok {
			at = v
		}
		return nil, fail(at, `write "jsonrpc":"2.0"`, `jsonrpc must be the string "2.0"`)
	}
	if _, ok := root.obj["id"]; !ok {
		return nil, fail(root, `give every request an id, e.g. "id":"call-001"`, "the request has no id")
	}
	m, ok := root.obj["method"]
	if !ok || m.kind != tjson.String {
		at := root
		if ok {
			at = m
		}
		return nil, fail(at, "method is initialize, tools/list or tools/call", "the request has no method string")
	}
	r.req.Method = m.str
	params, hasParams := root.obj["params"]
	if hasParams && params.kind != tjson.Object {
		return nil, fail(params, `params is an object: {"name":"fs.read","arguments":{…}}`, "params is %s, not an object", params.kindName())
	}
	st := &step.Step{ID: idText(r.req.ID), Dialect: Dialect, Pos: r.d.pos(b.open), Repairs: b.repairs, Source: &r.req}
	switch m.str {
	case "initialize", "tools/list":
		st.Reason = "mcp " + m.str
		return st, nil
	case "tools/call":
	default:
		return nil, fail(m, "method is initialize, tools/list or tools/call; a tool is named in params.name: "+template,
			"unknown method %q", m.str)
	}
	if !hasParams {
		return nil, fail(root, "tools/call needs params: "+template, "tools/call without params")
	}
	if params.ownDup != nil {
		return nil, fail(params.ownDup, "write each key once", "the key %q is written twice in params", params.ownDup.str)
	}
	for _, k := range params.keys {
		if k != "name" && k != "arguments" && k != "_meta" && !strings.HasPrefix(k, "__") {
			return nil, fail(params.key(k), `tool arguments go inside params.arguments: "params":{"name":"…","arguments":{…}}`,
				"unknown member %q in params", k)
		}
	}
	name, ok := params.obj["name"]
	if !ok || name.kind != tjson.String {
		at := params
		if ok {
			at = name
		}
		return nil, fail(at, "name the tool in params.name; the tools are "+toolNames(), "params.name must name a tool")
	}
	spec, ok := lookupTool(name.str)
	if !ok {
		hint := "the tools are " + toolNames()
		if m := suggest.Closest(name.str, strings.Split(toolNames(), ", ")); m != "" {
			hint = fmt.Sprintf("did you mean %s? %s", m, hint)
		}
		return nil, fail(name, hint, "unknown tool %q", name.str)
	}
	r.req.Tool = spec.name
	args, ok := params.obj["arguments"]
	if !ok {
		// MCP lets a call without arguments omit them; the required ones
		// are then reported as missing, one by one.
		args = &node{off: params.off, kind: tjson.Object, obj: map[string]*node{}, keyAt: map[string]int{}}
	} else if args.kind != tjson.Object {
		return nil, fail(args, "arguments is an object, even when empty: {}", "params.arguments is %s, not an object", args.kindName())
	}
	c := &call{spec: spec, args: args, d: r.d}
	if err := c.check(spec.args, args, spec.aliases); err != nil {
		return nil, err
	}
	if err := c.build(st, r.d.pos(args.off)); err != nil {
		return nil, err
	}
	return st, nil
}

// idText is the id as a step ID: the string itself, or the number's text.
func idText(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// call is one tools/call whose arguments are being checked and built.
type call struct {
	spec *toolSpec
	args *node
	d    *doc
}

// check validates an argument object against its contract: no unknown
// names (those starting with "__" are ignored), every required one
// present, each of its type, enum values and minimums respected.
func (c *call) check(spec []arg, obj *node, aliases map[string]string) error {
	if obj.dup != nil {
		return fail(obj.dup, "write each argument once", "the argument %q is written twice", obj.dup.str)
	}
	byName := map[string]*arg{}
	for i := range spec {
		byName[spec[i].name] = &spec[i]
	}
	for _, k := range obj.keys {
		if strings.HasPrefix(k, "__") {
			continue
		}
		if _, ok := byName[k]; !ok {
			hint := fmt.Sprintf("%s takes %s (* required)", c.spec.name, argNames(spec))
			if right, ok := aliases[k]; ok {
				hint = fmt.Sprintf("write %q instead of %q; %s", right, k, hint)
			} else if m := suggest.Closest(k, specNames(spec)); m != "" {
				hint = fmt.Sprintf("did you mean %q? %s", m, hint)
			}
			return fail(obj.key(k), hint, "%s has no argument %q", c.spec.name, k)
		}
	}
	for _, a := range spec {
		v, ok := obj.obj[a.name]
		if !ok {
			if a.required {
				return fail(obj, fmt.Sprintf("%s takes %s (* required)", c.spec.name, argNames(spec)), "%s needs the argument %q", c.spec.name, a.name)
			}
			continue
		}
		if err := checkType(c.spec.name, &a, v); err != nil {
			return err
		}
	}
	return nil
}

func checkType(tool string, a *arg, v *node) error {
	want := map[argKind]string{aString: "a string", aInt: "a whole number", aBool: "true or false",
		aStrings: "an array of strings", aEnv: "an object of strings", aFiles: "an array of objects"}[a.kind]
	wrong := func() error {
		return fail(v, fmt.Sprintf("write %s as %s", a.name, want), "%s: %s is %s, not %s", tool, a.name, v.kindName(), want)
	}
	switch a.kind {
	case aString:
		if v.kind != tjson.String {
			return wrong()
		}
		if a.required && !a.mayBeEmpty && v.str == "" {
			return fail(v, "give a value", "%s: %s is empty", tool, a.name)
		}
		if a.enum != nil && !contains(a.enum, v.str) {
			return fail(v, fmt.Sprintf("%s is one of %s", a.name, strings.Join(a.enum, ", ")), "%s: %s %q is not allowed", tool, a.name, v.str)
		}
	case aInt:
		n, err := strconv.ParseInt(v.num.String(), 10, 64)
		if v.kind != tjson.Number || err != nil {
			return wrong()
		}
		if n < a.min {
			return fail(v, fmt.Sprintf("%s is at least %d", a.name, a.min), "%s: %s is %d, below %d", tool, a.name, n, a.min)
		}
	case aBool:
		if v.kind != tjson.Bool {
			return wrong()
		}
	case aStrings:
		if v.kind != tjson.Array {
			return wrong()
		}
		for _, e := range v.arr {
			if e.kind != tjson.String {
				return fail(e, fmt.Sprintf("write %s as %s", a.name, want), "%s: an element of %s is %s, not a string", tool, a.name, e.kindName())
			}
		}
	case aEnv:
		if v.kind != tjson.Object {
			return wrong()
		}
		if v.dup != nil {
			return fail(v.dup, "write each variable once", "%s: env sets %q twice", tool, v.dup.str)
		}
		for _, k := range v.keys {
			if v.obj[k].kind != tjson.String {
				return fail(v.obj[k], `write every value as a string: "env":{"NAME":"value"}`, "%s: env %q is %s, not a string", tool, k, v.obj[k].kindName())
			}
		}
	case aFiles:
		if v.kind != tjson.Array {
			return wrong()
		}
		if len(v.arr) == 0 {
			return fail(v, "give at least one file", "%s: files is empty", tool)
		}
	}
	return nil
}

func specNames(spec []arg) []string {
	names := make([]string, len(spec))
	for i, a := range spec {
		names[i] = a.name
	}
	return names
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func (c *call) str(name string) string {
	if v, ok := c.args.obj[name]; ok {
		return v.str
	}
	return ""
}

func (c *call) has(name string) bool { _, ok := c.args.obj[name]; return ok }

func (c *call) int(name string) int {
	if v, ok := c.args.obj[name]; ok {
		n, _ := strconv.ParseInt(v.num.String(), 10, 64)
		return int(n)
	}
	return 0
}

func (c *call) int64(name string) int64 {
	if v, ok := c.args.obj[name]; ok {
		n, _ := strconv.ParseInt(v.num.String(), 10, 64)
		return n
	}
	return 0
}

func (c *call) bool(name string) bool {
	v, ok := c.args.obj[name]
	return ok && v.b
}

func (c *call) strs(name string) []string {
	out := []string{}
	if v, ok := c.args.obj[name]; ok {
		for _, e := range v.arr {
			out = append(out, e.str)
		}
	}
	return out
}

func (c *call) at(name string) *node {
	if v, ok := c.args.obj[name]; ok {
		return v
	}
	return c.args
}

// The patterns of fs.chmod's mode and of expectedSha256, which the input
// schemas publish too.
const (
	octalPattern  = `^[0-7]{3,4}$`
	sha256Pattern = `^[0-9a-fA-F]{64}$`
)

var (
	octalMode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(octalPattern) })
	sha256Hex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(sha256Pattern) })
)

func checkSHA(tool string, v *node) error {
	if !sha256Hex().MatchString(v.str) {
		return fail(v, "64 hexadecimal digits, as sha256sum prints them (fs.read with includeMeta shows it)",
			"%s: expectedSha256 %q is not a SHA-256", tool, v.str)
	}
	return nil
}

// build turns checked arguments into the step's op or program.
func (c *call) build(st *step.Step, pos step.Pos) error {
	tool := c.spec.name
	op := step.Op{Path: c.str("path"), Pos: pos}
	switch tool {
	case "fs.ls":
		depth := 1 // FlyCode's fs.ls lists one level unless told otherwise
		if c.has("depth") {
			depth = c.int("depth")
		}
		op.Kind, op.Read = step.OpList, &step.ReadOptions{Depth: depth, Glob: c.str("glob")}
		op.Narrow = `call fs.ls on a subfolder (path), with a smaller depth, or keep only some names with glob ("*.go")`
	case "fs.read":
		op.Kind, op.Read = step.OpRead, &step.ReadOptions{Range: c.str("range"), Line: c.int("line"), Lines: c.str("lines"),
			Encoding: c.str("encoding"), IncludeMeta: c.bool("includeMeta")}
	case "fs.search":
		op.Kind, op.Read = step.OpSearch, &step.ReadOptions{Query: c.str("query"), Regex: c.bool("regex"), Glob: c.str("glob"),
			Limit: c.int("limit"), MinBytes: c.int64("minBytes"), MaxBytes: c.int64("maxBytes"),
			MtimeFrom: c.str("mtimeFrom"), MtimeTo: c.str("mtimeTo"), ContextLines: c.int("contextLines")}
		op.Narrow = "call fs.search on a subfolder (path), with a narrower query, glob or extensions, or a smaller limit"
		if c.has("extensions") {
			op.Read.Extensions = c.strs("extensions")
		}
	case "fs.diff":
		if c.has("rightPath") == c.has("rightContent") {
			return fail(c.args, "give exactly one of rightPath (a file) and rightContent (text)",
				"fs.diff needs exactly one of rightPath and rightContent")
		}
		op.Kind, op.Path, op.To = step.OpDiff, c.str("leftPath"), c.str("rightPath")
		if c.has("rightPath") && op.To == "" {
			return fail(c.at("rightPath"), "give a value", "fs.diff: rightPath is empty")
		}
		if c.has("rightContent") {
			op.Content, op.HasContent = []byte(c.str("rightContent")), true
		}
		op.Read = &step.ReadOptions{ContextLines: c.int("contextLines")}
	case "fs.write":
		op.Kind, op.Content = step.OpWrite, []byte(c.str("content"))
		if c.str("mode") == "append" {
			op.Kind = step.OpAppend
		}
		if c.has("expectedSha256") {
			if err := checkSHA(tool, c.at("expectedSha256")); err != nil {
				return err
			}
			op.ExpectedSHA256 = strings.ToLower(c.str("expectedSha256"))
		}
	case "fs.writeBatch":
		files := c.args.obj["files"]
		for i, f := range files.arr {
			if f.kind != tjson.Object {
				return fail(f, `each file is {"path":…,"content":…}`, "fs.writeBatch: files[%d] is %s, not an object", i, f.kindName())
			}
			fc := &call{spec: &toolSpec{name: fmt.Sprintf("fs.writeBatch files[%d]", i)}, args: f, d: c.d}
			if err := fc.check(batchFileArgs, f, map[string]string{"text": "content", "data": "content", "file": "path", "sha256": "expectedSha256"}); err != nil {
				return err
			}
			fop := step.Op{Kind: step.OpWrite, Path: fc.str("path"), Content: []byte(fc.str("content")), Pos: c.d.pos(f.off)}
			if fc.str("mode") == "append" {
				fop.Kind = step.OpAppend
			}
			if fc.has("expectedSha256") {
				if err := checkSHA(fc.spec.name, fc.at("expectedSha256")); err != nil {
					return err
				}
				fop.ExpectedSHA256 = strings.ToLower(fc.str("expectedSha256"))
			}
			st.Ops = append(st.Ops, fop)
		}
		// No Reason: the model gave none, and the engine describes the
		// step by its operations, in the commit and on the terminal alike.
		return nil
	case "fs.mkdir":
		op.Kind, op.Parents = step.OpMkdir, c.bool("parents")
	case "fs.rm":
		op.Kind, op.Recursive, op.Force = step.OpDelete, c.bool("recursive"), c.bool("force")
	case "fs.mv":
		op.Kind, op.Path, op.To, op.Overwrite = step.OpMove, c.str("fromPath"), c.str("toPath"), c.bool("overwrite")
	case "fs.chmod":
		if !octalMode().MatchString(c.str("mode")) {
			return fail(c.at("mode"), `write the mode as 3 or 4 octal digits in a string, e.g. "755" or "0644"`,
				"fs.chmod: mode %q is not an octal mode", c.str("mode"))
		}
		op.Kind, op.Mode = step.OpChmod, c.str("mode")
	case "process.run", "shell.exec":
		p := step.Program{Name: c.str("command"), Command: c.str("command"), Cwd: c.str("cwd"),
			Timeout: time.Duration(c.int64("timeoutMs")) * time.Millisecond, Pos: pos}
		if tool == "process.run" {
			p.Args = c.strs("args") // non-nil even when empty: not a shell string
		} else {
			p.Shell = true
		}
		if env, ok := c.args.obj["env"]; ok {
			p.Env = map[string]string{}
			for _, k := range env.keys {
				p.Env[k] = env.obj[k].str
			}
		}
		st.Programs = []step.Program{p}
		st.Reason = "mcp " + tool + ": " + p.Command
		return nil
	}
	if op.Read != nil {
		if err := step.CheckReadOptions(op.Kind, op.Read); err != nil {
			var oe *step.OptionError
			if errors.As(err, &oe) {
				name, _, _ := strings.Cut(oe.Option, "/")
				return fail(c.at(name), oe.Fix, "%s: %s", tool, err.Error())
			}
			return fail(c.args, "", "%s: %v", tool, err)
		}
	}
	st.Ops = []step.Op{op} // no Reason: see fs.writeBatch
	return nil
}
