package mcp

import "strings"

// argKind is the JSON type an argument must have.
type argKind int

const (
	aString  argKind = iota
	aInt             // a JSON number with a whole value
	aBool            //
	aStrings         // an array of strings
	aEnv             // an object whose values are strings
	aFiles           // fs.writeBatch's array of {path, content, mode, expectedSha256}
)

// arg is one argument of a tool. The names are the contract: the reference
// refuses any other name, and so does this reader.
type arg struct {
	name     string
	kind     argKind
	required bool
	enum     []string
	min      int64 // integers: the smallest value accepted
	desc     string
	// mayBeEmpty lets a required string be "" (content: an empty file).
	mayBeEmpty bool
	// pattern is the regular expression a string must match, where the
	// reader checks one (its schema says the same).
	pattern string
}

// toolSpec is one of the twelve FlyCode tools.
type toolSpec struct {
	name  string
	title string // for people, in a client's tool list
	desc  string
	// kind is read, write or program: what the annotations tell a client
	// (reads may be approved without asking).
	kind                    toolKind
	destructive, idempotent bool
	args                    []arg
	// aliases maps argument names models write by mistake to the right ones,
	// for the hint.
	aliases map[string]string
}

// toolKind is what a tool does to the repository.
type toolKind int

const (
	kRead    toolKind = iota // reads only
	kWrite                   // one commit on the work branch
	kProgram                 // runs a program (and commits what it changed)
)

var pathArg = arg{name: "path", kind: aString, required: true, desc: "file or directory; relative to the repository root, or absolute inside it"}

var tools = []toolSpec{
	{name: "fs.ls", title: "List a folder", kind: kRead, destructive: false, idempotent: true,
		desc: "List the tree under a directory, one path per line, directories ending in /.",
		args: []arg{pathArg,
			{name: "depth", kind: aInt, min: 1, desc: "levels to list below path (default 1)"},
			{name: "glob", kind: aString, desc: `keep entries whose name matches, e.g. "*.go" or "**/*.ts"`}},
		aliases: map[string]string{"dir": "path", "directory": "path", "pattern": "glob", "maxDepth": "depth", "recursive": "depth"}},
	{name: "fs.read", title: "Read a file", kind: kRead, destructive: false, idempotent: true,
		desc: "Read a file, or part of it. range, line and lines exclude each other; line and lines need utf-8.",
		args: []arg{pathArg,
			{name: "range", kind: aString, desc: `"head:N", "tail:N" or "start:end" (characters; start from 0, end excluded)`},
			{name: "line", kind: aInt, min: 1, desc: "one line, counted from 1"},
			{name: "lines", kind: aString, desc: `"a-b": lines a to b, counted from 1, inclusive`},
			{name: "encoding", kind: aString, enum: []string{"utf-8", "base64", "hex"}, desc: "how to return the content (default utf-8)"},
			{name: "includeMeta", kind: aBool, desc: "prefix size, sha256, line count and mtime"}},
		aliases: map[string]string{"file": "path", "filePath": "path", "start": "range", "offset": "range", "lineRange": "lines"}},
	{name: "fs.search", title: "Search files", kind: kRead, destructive: false, idempotent: true,
		desc: "Search files under a directory for text (or a regular expression); grep-style output.",
		args: []arg{pathArg,
			{name: "query", kind: aString, required: true, desc: "text to find (a Go regular expression when regex is true)"},
			{name: "regex", kind: aBool, desc: "treat query as a regular expression"},
			{name: "glob", kind: aString, desc: `only files whose name matches, e.g. "**/*.ts"`},
			{name: "limit", kind: aInt, min: 1, desc: "most matching lines to return (default 100)"},
			{name: "extensions", kind: aStrings, desc: `only files with these extensions, e.g. ["go", ".ts"]`},
			{name: "minBytes", kind: aInt, min: 0, desc: "skip smaller files"},
			{name: "maxBytes", kind: aInt, min: 0, desc: "skip larger files"},
			{name: "mtimeFrom", kind: aString, desc: "skip files changed before (RFC 3339 time or YYYY-MM-DD)"},
			{name: "mtimeTo", kind: aString, desc: "skip files changed after (RFC 3339 time or YYYY-MM-DD)"},
			{name: "contextLines", kind: aInt, min: 0, desc: "lines of context around each match (0-5 advised)"}},
		aliases: map[string]string{"pattern": "query", "text": "query", "q": "query", "dir": "path", "maxResults": "limit", "context": "contextLines"}},
	{name: "fs.diff", title: "Diff a file", kind: kRead, destructive: false, idempotent: true,
		desc: "Unified diff of a file against another file (rightPath) or against text (rightContent); exactly one of the two.",
		args: []arg{
			{name: "leftPath", kind: aString, required: true, desc: "the file before"},
			{name: "rightPath", kind: aString, desc: "the file after"},
			{name: "rightContent", kind: aString, desc: "the text after"},
			{name: "contextLines", kind: aInt, min: 0, desc: "unchanged lines around each change (default 3)"}},
		aliases: map[string]string{"path": "leftPath", "left": "leftPath", "right": "rightPath", "content": "rightContent", "from": "leftPath", "to": "rightPath"}},
	{name: "fs.write", title: "Write a file", kind: kWrite, destructive: true, idempotent: false,
		desc: "Write a file (overwrite) or add to its end (append). Answers WRITE_SUCCESS.",
		args: []arg{pathArg,
			{name: "mode", kind: aString, required: true, enum: []string{"overwrite", "append"}, desc: "overwrite or append"},
			{name: "content", kind: aString, required: true, mayBeEmpty: true, desc: "the text to write"},
			{name: "expectedSha256", kind: aString, pattern: sha256Pattern, desc: "refuse (CONFLICT) unless the file's current SHA-256 is this"}},
		aliases: map[string]string{"file": "path", "text": "content", "data": "content", "sha256": "expectedSha256"}},
	{name: "fs.writeBatch", title: "Write several files", kind: kWrite, destructive: true, idempotent: false,
		desc:    "Write several files as one step: all of them or none. Answers WRITE_BATCH_SUCCESS.",
		args:    []arg{{name: "files", kind: aFiles, required: true, desc: "the files: [{path, content, mode, expectedSha256}]"}},
		aliases: map[string]string{"writes": "files", "items": "files"}},
	{name: "fs.mkdir", title: "Create a folder", kind: kWrite, destructive: false, idempotent: true,
		desc:    "Create a directory. git records no empty directory: it appears in history with its first file.",
		args:    []arg{pathArg, {name: "parents", kind: aBool, desc: "create missing parents too"}},
		aliases: map[string]string{"recursive": "parents", "dir": "path"}},
	{name: "fs.rm", title: "Delete a file or folder", kind: kWrite, destructive: true, idempotent: true,
		desc: "Delete a file, or a directory with recursive.",
		args: []arg{pathArg,
			{name: "recursive", kind: aBool, desc: "delete a directory and what it holds"},
			{name: "force", kind: aBool, desc: "a missing path is not an error"}},
		aliases: map[string]string{"file": "path", "dir": "path"}},
	{name: "fs.mv", title: "Move or rename", kind: kWrite, destructive: true, idempotent: false,
		desc: "Move or rename a file or directory.",
		args: []arg{
			{name: "fromPath", kind: aString, required: true, desc: "what to move"},
			{name: "toPath", kind: aString, required: true, desc: "where to"},
			{name: "overwrite", kind: aBool, desc: "replace an existing toPath"}},
		aliases: map[string]string{"src": "fromPath", "source": "fromPath", "from": "fromPath", "path": "fromPath",
			"dest": "toPath", "dst": "toPath", "destination": "toPath", "to": "toPath", "target": "toPath"}},
	{name: "fs.chmod", title: "Set a file mode", kind: kWrite, destructive: false, idempotent: true,
		desc:    `Set a file's mode, e.g. "755" (git records only the executable bit).`,
		args:    []arg{pathArg, {name: "mode", kind: aString, required: true, pattern: octalPattern, desc: `3 or 4 octal digits, e.g. "755" or "0644"`}},
		aliases: map[string]string{"permissions": "mode", "perm": "mode"}},
	{name: "process.run", title: "Run a program", kind: kProgram, destructive: true, idempotent: false,
		desc: "Run a program with arguments (no shell), where the command policy allows it.",
		args: []arg{
			{name: "command", kind: aString, required: true, desc: "the program"},
			{name: "args", kind: aStrings, desc: "its arguments"},
			{name: "cwd", kind: aString, desc: "working directory (default: the repository root)"},
			{name: "timeoutMs", kind: aInt, min: 1, desc: "kill it after this many milliseconds"},
			{name: "env", kind: aEnv, desc: "extra environment variables"}},
		aliases: map[string]string{"cmd": "command", "argv": "args", "arguments": "args", "timeout": "timeoutMs", "workdir": "cwd", "dir": "cwd"}},
	{name: "shell.exec", title: "Run a shell command", kind: kProgram, destructive: true, idempotent: false,
		desc: "Run one shell command line (sh -c), where the command policy allows it.",
		args: []arg{
			{name: "command", kind: aString, required: true, desc: "the whole command line"},
			{name: "cwd", kind: aString, desc: "working directory (default: the repository root)"},
			{name: "timeoutMs", kind: aInt, min: 1, desc: "kill it after this many milliseconds"},
			{name: "env", kind: aEnv, desc: "extra environment variables"}},
		aliases: map[string]string{"cmd": "command", "script": "command", "timeout": "timeoutMs", "workdir": "cwd", "dir": "cwd", "args": "command"}},
}

// batchFileArgs are the keys of one fs.writeBatch entry.
var batchFileArgs = []arg{
	{name: "path", kind: aString, required: true},
	{name: "content", kind: aString, required: true, mayBeEmpty: true},
	{name: "mode", kind: aString, enum: []string{"overwrite", "append"}},
	{name: "expectedSha256", kind: aString, pattern: sha256Pattern},
}

// lookupTool finds a tool by its dotted name or by the underscore name MCP
// clients use (fs_read, process_run, fs_writeBatch).
func lookupTool(name string) (*toolSpec, bool) {
	for i := range tools {
		t := &tools[i]
		if name == t.name || name == strings.Replace(t.name, ".", "_", 1) {
			return t, true
		}
	}
	return nil, false
}

func toolNames() string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	return strings.Join(names, ", ")
}

func argNames(args []arg) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.name
		if a.required {
			names[i] += "*"
		}
	}
	return strings.Join(names, ", ")
}

// Tool describes one tool as tools/list answers it.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
}

// ToolDef is one tool as an MCP server publishes it: both names, a title,
// the input schema, and the hints clients use to decide what to approve
// without asking (MCP's ToolAnnotations).
type ToolDef struct {
	Name        string // the dotted name (fs.read)
	MCPName     string // the name MCP clients accept (fs_read)
	Title       string
	Description string
	InputSchema map[string]any
	// ReadOnly: the tool changes nothing. Destructive: it may overwrite or
	// delete what is there (every write is still a commit undo can drop).
	// Idempotent: calling it again with the same arguments changes nothing
	// more. OpenWorld: it reaches outside the repository (a program).
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// ToolDefs returns the twelve tools, in the order of the prompt.
func ToolDefs() []ToolDef {
	out := make([]ToolDef, len(tools))
	for i, t := range tools {
		out[i] = ToolDef{Name: t.name, MCPName: strings.Replace(t.name, ".", "_", 1), Title: t.title,
			Description: t.desc, InputSchema: toolSchema(&t),
			ReadOnly: t.kind == kRead, Destructive: t.destructive, Idempotent: t.idempotent, OpenWorld: t.kind == kProgram}
	}
	return out
}

// Tools returns the twelve FlyCode tools with their JSON Schemas, in the
// order of the prompt. underscore selects the names MCP clients accept
// (fs_read) instead of the dotted ones (fs.read); both are read back.
func Tools(underscore bool) []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		name := t.name
		if underscore {
			name = strings.Replace(name, ".", "_", 1)
		}
		out[i] = Tool{Name: name, Description: t.desc, InputSchema: toolSchema(&t)}
	}
	return out
}

// toolSchema is a tool's input schema: its arguments, plus the rules
// between them that the reader enforces. Those use if/then/else and not,
// never a top-level oneOf, anyOf or allOf, which the Anthropic API refuses
// in a tool's schema (one such tool breaks every request of a client that
// forwards the list).
func toolSchema(t *toolSpec) map[string]any {
	s := objectSchema(t.args)
	switch t.name {
	case "fs.diff":
		s["if"] = map[string]any{"required": []string{"rightPath"}}
		s["then"] = map[string]any{"not": map[string]any{"required": []string{"rightContent"}}}
		s["else"] = map[string]any{"required": []string{"rightContent"}}
	case "fs.read":
		binary := map[string]any{"encoding": map[string]any{"enum": []string{"base64", "hex"}}}
		s["not"] = map[string]any{"anyOf": []any{
			map[string]any{"required": []string{"range", "line"}},
			map[string]any{"required": []string{"range", "lines"}},
			map[string]any{"required": []string{"line", "lines"}},
			map[string]any{"required": []string{"line", "encoding"}, "properties": binary},
			map[string]any{"required": []string{"lines", "encoding"}, "properties": binary},
		}}
	}
	return s
}

func objectSchema(args []arg) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, a := range args {
		s := map[string]any{}
		switch a.kind {
		case aString:
			s["type"] = "string"
		case aInt:
			s["type"] = "integer"
			s["minimum"] = a.min
		case aBool:
			s["type"] = "boolean"
		case aStrings:
			s["type"] = "array"
			s["items"] = map[string]any{"type": "string"}
		case aEnv:
			s["type"] = "object"
			s["additionalProperties"] = map[string]any{"type": "string"}
		case aFiles:
			s["type"] = "array"
			s["minItems"] = 1
			s["items"] = objectSchema(batchFileArgs)
		}
		if a.enum != nil {
			s["enum"] = a.enum
		}
		if a.pattern != "" {
			s["pattern"] = a.pattern
		}
		if a.kind == aString && a.required && !a.mayBeEmpty {
			s["minLength"] = 1
		}
		if a.desc != "" {
			s["description"] = a.desc
		}
		props[a.name] = s
		if a.required {
			required = append(required, a.name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// ToolNames are the dotted names of the twelve tools, in the order of the
// tools/list answer.
func ToolNames() []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	return names
}
