// Package step is the step model every other package shares: what a dialect
// reader produces (Step, Op, Edit, Check, Program, Item, ParseError), what the
// engine reports (Result, Status) and the classes of errors callers act on
// (errors.go). It is a leaf: it imports nothing of ours and no git library.
//
// Start with Step, then Result, then Class in errors.go.
package step

import "time"

// Pos is a place in the response text: a byte offset and a 1-based line and
// column. Every step, op and error keeps one so that messages can point at it.
type Pos struct {
	Offset int `json:"offset" jsonschema:"the byte offset in the response"`
	Line   int `json:"line" jsonschema:"1-based"`
	Col    int `json:"col" jsonschema:"1-based, in characters"`
}

// OpKind names what an Op does to the repository.
type OpKind string

// The operations. Write kinds change files and are recorded in the step's
// commit; read kinds only produce output for the feedback.
const (
	OpWrite   OpKind = "write"   // create or overwrite Path with Content
	OpAppend  OpKind = "append"  // append Content to Path (MustExist: the file must already exist)
	OpReplace OpKind = "replace" // apply Edits to Path in order (matcher rules)
	OpDelete  OpKind = "delete"  // delete the file Path (Recursive: a directory and what it holds)
	OpMove    OpKind = "move"    // move Path to To (Overwrite: replace an existing To)
	OpMkdir   OpKind = "mkdir"   // create the directory Path and its parents
	OpRmdir   OpKind = "rmdir"   // delete the directory Path and the tracked files in it
	OpChmod   OpKind = "chmod"   // set the mode of Path (git records only the executable bit)
	OpRead    OpKind = "read"    // read Path into the feedback
	OpList    OpKind = "list"    // list the tree under Path into the feedback
	OpSearch  OpKind = "search"  // search under Path (MCP fs.search)
	OpDiff    OpKind = "diff"    // diff Path against To or Content (MCP fs.diff)
	OpEcho    OpKind = "echo"    // put Content into the feedback (Axon echo); touches nothing
	OpStatus  OpKind = "status"  // the repository's branch and uncommitted paths into the feedback (Axon git_status)
)

// Writes reports whether the kind changes the repository.
func (k OpKind) Writes() bool {
	switch k {
	case OpRead, OpList, OpSearch, OpDiff, OpEcho, OpStatus:
		return false
	}
	return true
}

// Edit is one replacement inside a file: Old must be found (matcher rules) and
// becomes New. Identifier, when set, names the function or class the edit is
// about and picks one occurrence when Old occurs several times.
type Edit struct {
	Identifier string `json:"identifier,omitempty"`
	Old        string `json:"old"`
	New        string `json:"new"`
	// Anchors, Follows and AtEnd say where the edit goes besides its old
	// text, for the formats that say so (matcher/place.go has the rules):
	// Anchors are apply_patch's "@@ def f" lines, each equal to a whole
	// line of the file, after which Old's first occurrence is the place;
	// Follows starts the search where the op's previous edit ended (the
	// chunks of one apply_patch Update); AtEnd: Old ends at the end of the
	// file ("*** End of File", a diff's "\ No newline at end of file"), and
	// an empty Old with AtEnd appends New.
	Anchors []string `json:"anchors,omitempty"`
	Follows bool     `json:"follows,omitempty"`
	AtEnd   bool     `json:"at_end,omitempty"`
	Pos     Pos      `json:"pos"`
}

// Op is one operation of a step. Which fields matter depends on Kind.
type Op struct {
	Kind    OpKind `json:"kind"`
	Path    string `json:"path"`
	To      string `json:"to,omitempty"`      // move target; diff right-hand path
	Content []byte `json:"content,omitempty"` // write, append; diff right-hand content; delete: what the file must hold
	// HasContent tells an empty Content from an absent one (fs.diff
	// rightContent ""). On a delete it makes Content a precondition: the
	// file must hold it ("\r\n" read as "\n"), as a unified diff's
	// deletion quotes the lines it removes.
	HasContent bool   `json:"-"`
	Edits      []Edit `json:"edits,omitempty"`

	MustExist bool `json:"must_exist,omitempty"` // append: refuse a missing file
	// TextLines: write, append: Content is lines of text (Axon write_file,
	// append_file): the file ends with a line break, and an append starts
	// on a new line. Every write and append keeps the line-ending style of
	// the file it changes, TextLines or not.
	TextLines bool `json:"text_lines,omitempty"`
	Overwrite bool `json:"overwrite,omitempty"` // move: replace an existing target
	Recursive bool `json:"recursive,omitempty"` // delete: a directory too
	Force     bool `json:"force,omitempty"`     // delete: a missing path is not an error
	// NoReplace: write: refuse to replace an existing file that is not
	// empty (an aider or Cline SEARCH/REPLACE block with an empty SEARCH,
	// the editor tool's create). An empty file is filled, and a file that
	// already holds Content is left as it is, so the same answer applied
	// twice changes nothing the second time.
	NoReplace bool `json:"no_replace,omitempty"`
	// AfterLine: append: insert Content after this many lines of the file
	// (0: before its first line) rather than at its end; the lines are the
	// file's text split at "\n", as the text editor tool's insert counts
	// them (FORMATS.md 4.2). The one edit placed by a line number: the
	// tool defines it so.
	AfterLine *int   `json:"after_line,omitempty"`
	Parents   bool   `json:"parents,omitempty"` // mkdir: create missing parents
	Mode      string `json:"mode,omitempty"`    // chmod: octal string such as "755"

	// ExpectedSHA256 is a precondition on the current content of Path (hex).
	ExpectedSHA256 string `json:"expected_sha256,omitempty"`

	// Read carries the options of read kinds that have them (MCP fs.read,
	// fs.ls, fs.search, fs.diff); nil means the defaults.
	Read *ReadOptions `json:"read,omitempty"`
	// Narrow says how to ask for less, in the words of the dialect that
	// sent the op (its own operations and arguments): a listing or search
	// cut at its bounds ends with it.
	Narrow string `json:"-"`

	Pos Pos `json:"pos"`
}

// ReadOptions are the options of the read kinds. Zero values are defaults.
type ReadOptions struct {
	Range        string   `json:"range,omitempty"` // head:N, tail:N, start:end (characters)
	Line         int      `json:"line,omitempty"`
	Lines        string   `json:"lines,omitempty"`    // a-b
	Encoding     string   `json:"encoding,omitempty"` // utf-8, base64, hex
	IncludeMeta  bool     `json:"include_meta,omitempty"`
	Depth        int      `json:"depth,omitempty"`
	Glob         string   `json:"glob,omitempty"`
	Query        string   `json:"query,omitempty"`
	Regex        bool     `json:"regex,omitempty"`
	Limit        int      `json:"limit,omitempty"`
	Extensions   []string `json:"extensions,omitempty"`
	MinBytes     int64    `json:"min_bytes,omitempty"`
	MaxBytes     int64    `json:"max_bytes,omitempty"`
	MtimeFrom    string   `json:"mtime_from,omitempty"`
	MtimeTo      string   `json:"mtime_to,omitempty"`
	ContextLines int      `json:"context_lines,omitempty"`
}

// CheckKind names a precondition.
type CheckKind string

// The preconditions. A failed check fails the step with exit code 3; in Axon
// it also stops the run.
const (
	CheckFilesExist CheckKind = "files_exist" // every path in Paths exists
	CheckCwdMatch   CheckKind = "cwd_match"   // the repository root is Want (whole path components; ~ expands)
)

// Check is one precondition of a step.
type Check struct {
	Kind  CheckKind `json:"kind"`
	Paths []string  `json:"paths,omitempty"`
	Want  string    `json:"want,omitempty"`
	Pos   Pos       `json:"pos"`
}

// Program is a command a step runs (program_operations, process.run,
// shell.exec, run_command). Args == nil means Command is one shell string.
type Program struct {
	Name           string            `json:"name,omitempty"`
	Command        string            `json:"command"`
	Args           []string          `json:"args,omitempty"`
	Shell          bool              `json:"shell,omitempty"` // run Command with sh -c
	Cwd            string            `json:"cwd,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	Timeout        time.Duration     `json:"timeout,omitempty"`
	ExpectedOutput string            `json:"expected_output,omitempty"`
	Terminate      bool              `json:"terminate,omitempty"` // check_program: stop the named program
	// Live: the program keeps running after its step (a server, a
	// watcher); each later turn reports its new output, and check_program
	// (Terminate) or the end of the command stops it.
	Live bool `json:"live,omitempty"`
	Pos  Pos  `json:"pos"`
}

// Step is one instruction block (or one Axon git_commit group): the unit that
// becomes one commit, or no commit when it only reads or changes nothing.
type Step struct {
	ID      string `json:"id"`               // step_id, or "step-N"
	Reason  string `json:"reason,omitempty"` // commit subject
	Summary string `json:"summary,omitempty"`
	Dialect string `json:"dialect"` // "autocoder-json", "mcp", "axon"
	Pos     Pos    `json:"pos"`

	Checks   []Check   `json:"checks,omitempty"`
	Ops      []Op      `json:"ops,omitempty"`
	Programs []Program `json:"programs,omitempty"`

	// Finish marks an autocoder JSON "finish" step: it carries only Summary.
	Finish bool `json:"finish,omitempty"`
	// StopRun: when a check of this step fails, nothing after it is applied
	// (Axon's check_* acts).
	StopRun bool `json:"stop_run,omitempty"`
	// Repairs lists what the tolerant reader had to fix to read the block.
	Repairs []Repair `json:"repairs,omitempty"`

	// Raw is the block's text as the response wrote it, kept as the step's
	// provenance (a git note on its commit); "" for a step that came from
	// no text (an MCP tool call).
	Raw string `json:"-"`

	// Source is the dialect's own record of the request (for example the
	// JSON-RPC id and tool name), kept for writing the feedback.
	Source any `json:"-"`
}

// Repair is one deviation from the strict dialect that the reader accepted.
type Repair struct {
	Pos  Pos    `json:"pos"`
	What string `json:"what"`
}

// WritesFiles reports whether any op of the step changes files.
func (s *Step) WritesFiles() bool {
	for _, op := range s.Ops {
		if op.Kind.Writes() {
			return true
		}
	}
	return false
}
