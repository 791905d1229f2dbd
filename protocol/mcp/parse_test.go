package mcp

import (
	"github.com/autocoder/autocoder/step"
	"reflect"
	"strings"
	"testing"
	"time"
)

// call wraps a tool's arguments in a fenced request.
func callText(tool, args string) string {
	return "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":" + args + "}}\n```\n"
}

func parseOne(t *testing.T, text string) step.Item {
	t.Helper()
	items := Parse([]byte(text))
	checkItems(t, []byte(text), items)
	if len(items) != 1 {
		t.Fatalf("want 1 item, got %d", len(items))
	}
	return items[0]
}

// TestValidArguments is the table of every tool's contract, valid side:
// the op or program each call becomes (positions left out).
func TestValidArguments(t *testing.T) {
	cases := []struct {
		tool, args string
		ops        []step.Op
		programs   []step.Program
	}{
		{"fs.ls", `{"path":"src"}`, []step.Op{{Kind: step.OpList, Path: "src", Read: &step.ReadOptions{Depth: 1}}}, nil},
		{"fs.ls", `{"path":"/abs/src","depth":3,"glob":"**/*.go"}`, []step.Op{{Kind: step.OpList, Path: "/abs/src", Read: &step.ReadOptions{Depth: 3, Glob: "**/*.go"}}}, nil},
		{"fs_ls", `{"path":"."}`, []step.Op{{Kind: step.OpList, Path: ".", Read: &step.ReadOptions{Depth: 1}}}, nil},
		{"fs.read", `{"path":"a"}`, []step.Op{{Kind: step.OpRead, Path: "a", Read: &step.ReadOptions{}}}, nil},
		{"fs.read", `{"path":"a","range":"tail:5","encoding":"hex","includeMeta":true}`,
			[]step.Op{{Kind: step.OpRead, Path: "a", Read: &step.ReadOptions{Range: "tail:5", Encoding: "hex", IncludeMeta: true}}}, nil},
		{"fs.read", `{"path":"a","line":7,"encoding":"utf-8"}`, []step.Op{{Kind: step.OpRead, Path: "a", Read: &step.ReadOptions{Line: 7, Encoding: "utf-8"}}}, nil},
		{"fs.read", `{"path":"a","lines":"3-9"}`, []step.Op{{Kind: step.OpRead, Path: "a", Read: &step.ReadOptions{Lines: "3-9"}}}, nil},
		{"fs.search", `{"path":"s","query":"x","extensions":[],"limit":1,"contextLines":0}`,
			[]step.Op{{Kind: step.OpSearch, Path: "s", Read: &step.ReadOptions{Query: "x", Extensions: []string{}, Limit: 1}}}, nil},
		{"fs.diff", `{"leftPath":"a","rightPath":"b"}`, []step.Op{{Kind: step.OpDiff, Path: "a", To: "b", Read: &step.ReadOptions{}}}, nil},
		{"fs.diff", `{"leftPath":"a","rightContent":"x\n","contextLines":1}`,
			[]step.Op{{Kind: step.OpDiff, Path: "a", Content: []byte("x\n"), HasContent: true, Read: &step.ReadOptions{ContextLines: 1}}}, nil},
		{"fs.write", `{"path":"a","mode":"overwrite","content":""}`, []step.Op{{Kind: step.OpWrite, Path: "a", Content: []byte{}}}, nil},
		{"fs.write", `{"path":"a","mode":"append","content":"z","expectedSha256":"` + strings.Repeat("AB", 32) + `"}`,
			[]step.Op{{Kind: step.OpAppend, Path: "a", Content: []byte("z"), ExpectedSHA256: strings.Repeat("ab", 32)}}, nil},
		{"fs.writeBatch", `{"files":[{"path":"a","content":"1"},{"path":"b","content":"2","mode":"append"}]}`,
			[]step.Op{{Kind: step.OpWrite, Path: "a", Content: []byte("1")}, {Kind: step.OpAppend, Path: "b", Content: []byte("2")}}, nil},
		{"fs.mkdir", `{"path":"d","parents":true}`, []step.Op{{Kind: step.OpMkdir, Path: "d", Parents: true}}, nil},
		{"fs.rm", `{"path":"d","recursive":true,"force":false}`, []step.Op{{Kind: step.OpDelete, Path: "d", Recursive: true}}, nil},
		{"fs.mv", `{"fromPath":"a","toPath":"b","overwrite":true}`, []step.Op{{Kind: step.OpMove, Path: "a", To: "b", Overwrite: true}}, nil},
		{"fs.chmod", `{"path":"x","mode":"0644"}`, []step.Op{{Kind: step.OpChmod, Path: "x", Mode: "0644"}}, nil},
		{"process.run", `{"command":"go"}`, nil, []step.Program{{Name: "go", Command: "go", Args: []string{}}}},
		{"process_run", `{"command":"go","args":["test","./..."],"cwd":"sub","timeoutMs":1500,"env":{"A":"1"}}`, nil,
			[]step.Program{{Name: "go", Command: "go", Args: []string{"test", "./..."}, Cwd: "sub", Timeout: 1500 * time.Millisecond, Env: map[string]string{"A": "1"}}}},
		{"shell.exec", `{"command":"make && make test","__confirmed":true}`, nil,
			[]step.Program{{Name: "make && make test", Command: "make && make test", Shell: true}}},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			it := parseOne(t, callText(c.tool, c.args))
			if it.Err != nil {
				t.Fatalf("unexpected error: %v", it.Err)
			}
			s := it.Step
			if s.ID != "t-1" || s.Source.(*Request).Tool != strings.Replace(c.tool, "_", ".", 1) {
				t.Errorf("id %q, source %+v", s.ID, s.Source)
			}
			for i := range s.Ops {
				s.Ops[i].Pos = step.Pos{}
				// A listing or search says how to narrow it in this
				// dialect's words: its own tool.
				if k := s.Ops[i].Kind; k == step.OpList || k == step.OpSearch {
					if tool := strings.Replace(c.tool, "_", ".", 1); !strings.Contains(s.Ops[i].Narrow, tool) {
						t.Errorf("%s: the narrowing advice %q does not name %s", c.tool, s.Ops[i].Narrow, tool)
					}
					s.Ops[i].Narrow = ""
				}
			}
			for i := range s.Programs {
				s.Programs[i].Pos = step.Pos{}
			}
			if !reflect.DeepEqual(s.Ops, c.ops) || !reflect.DeepEqual(s.Programs, c.programs) {
				t.Errorf("got ops %+v programs %+v\nwant ops %+v programs %+v", s.Ops, s.Programs, c.ops, c.programs)
			}
			if c.tool == "process.run" && s.Programs[0].Args == nil {
				t.Error("process.run must give a non-nil Args, so the engine does not run a shell")
			}
		})
	}
}

// TestInvalidArguments is the table of contract violations: each is an
// INVALID_INPUT error that keeps the id and points at the offending text.
func TestInvalidArguments(t *testing.T) {
	cases := []struct {
		tool, args string
		at         string // the text the error's position starts with
	}{
		{"fs.mv", `{"src":"/a","dest":"/b"}`, `"src"`},
		{"fs.mv", `{"fromPath":"/a"}`, `{"fromPath"`},
		{"fs.mv", `{"fromPath":"/a","toPath":""}`, `""`},
		{"fs.mv", `{"fromPath":"/a","toPath":"b","overwrite":"yes"}`, `"yes"`},
		{"fs.ls", `{"path":"a","depth":0}`, `0`},
		{"fs.ls", `{"path":"a","depth":1.5}`, `1.5`},
		{"fs.ls", `{"path":"a","glob":"[x"}`, `"[x"`},
		{"fs.ls", `{"path":7}`, `7`},
		{"fs.read", `{"path":"a","range":"head:1","line":2}`, `"head:1"`},
		{"fs.read", `{"path":"a","range":"head:1","lines":"1-2"}`, `"head:1"`},
		{"fs.read", `{"path":"a","line":2,"lines":"1-2"}`, `2`},
		{"fs.read", `{"path":"a","encoding":"base64","lines":"1-2"}`, `"base64"`},
		{"fs.read", `{"path":"a","encoding":"hex","line":1}`, `"hex"`},
		{"fs.read", `{"path":"a","encoding":"latin1"}`, `"latin1"`},
		{"fs.read", `{"path":"a","lines":"5-2"}`, `"5-2"`},
		{"fs.read", `{"path":"a","range":"10"}`, `"10"`},
		{"fs.read", `{"path":"a","includeMeta":1}`, `1`},
		{"fs.read", `{"file":"a"}`, `"file"`},
		{"fs.search", `{"path":"a"}`, `{"path"`},
		{"fs.search", `{"path":"a","query":"x","extensions":"ts"}`, `"ts"`},
		{"fs.search", `{"path":"a","query":"x","extensions":[1]}`, `1`},
		{"fs.search", `{"path":"a","query":"x","mtimeFrom":"last week"}`, `"last week"`},
		{"fs.search", `{"path":"a","query":"x","minBytes":9,"maxBytes":3}`, `9`},
		{"fs.search", `{"path":"a","query":"x","limit":0}`, `0`},
		{"fs.search", `{"path":"a","query":"x","contextLines":-1}`, `-1`},
		{"fs.diff", `{"leftPath":"a"}`, `{"leftPath"`},
		{"fs.diff", `{"leftPath":"a","rightPath":"b","rightContent":""}`, `{"leftPath"`},
		{"fs.diff", `{"leftPath":"a","rightPath":""}`, `""`},
		{"fs.write", `{"path":"a","mode":"overwrite"}`, `{"path"`},
		{"fs.write", `{"path":"a","mode":"w","content":"x"}`, `"w"`},
		{"fs.write", `{"path":"a","mode":"overwrite","content":["x"]}`, `["x"]`},
		{"fs.write", `{"path":"a","mode":"overwrite","content":"x","expectedSha256":"xyz"}`, `"xyz"`},
		{"fs.writeBatch", `{"files":[]}`, `[]`},
		{"fs.writeBatch", `{"files":{"path":"a"}}`, `{"path"`},
		{"fs.writeBatch", `{"files":["a"]}`, `"a"`},
		{"fs.writeBatch", `{"files":[{"path":"a"}]}`, `{"path"`},
		{"fs.writeBatch", `{"files":[{"path":"a","content":"x","mode":"move"}]}`, `"move"`},
		{"fs.writeBatch", `{"files":[{"path":"a","content":"x","expectedSha256":"1"}]}`, `"1"`},
		{"fs.mkdir", `{"path":"a","recursive":true}`, `"recursive"`},
		{"fs.rm", `{"path":"a","recursive":"true"}`, `"true"`},
		{"fs.chmod", `{"path":"a","mode":"888"}`, `"888"`},
		{"fs.chmod", `{"path":"a","mode":"75"}`, `"75"`},
		{"fs.chmod", `{"path":"a"}`, `{"path"`},
		{"process.run", `{"command":"go","args":"test"}`, `"test"`},
		{"process.run", `{"command":"go","env":{"A":1}}`, `1`},
		{"process.run", `{"command":"go","env":["A=1"]}`, `["A=1"]`},
		{"process.run", `{"command":"go","timeoutMs":0}`, `0`},
		{"process.run", `{"command":""}`, `""`},
		{"shell.exec", `{"command":"ls","args":["-l"]}`, `"args"`},
		{"shell.exec", `{}`, `{}`},
		{"fs.read", `{"path":"a","path":"b"}`, `"path":"b"`},
		{"fs.remove", `{"path":"a"}`, `"fs.remove"`},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			text := callText(c.tool, c.args)
			it := parseOne(t, text)
			if it.Err == nil {
				t.Fatalf("accepted: %+v", it.Step)
			}
			req := it.Err.Source.(*Request)
			if req.AppCode != CodeInvalidInput || string(req.ID) != `"t-1"` || req.Method != "tools/call" {
				t.Errorf("source %+v", req)
			}
			if !strings.HasPrefix(text[it.Err.Pos.Offset:], c.at) {
				t.Errorf("error %q points at %.20q, want %q", it.Err.Error(), text[it.Err.Pos.Offset:], c.at)
			}
			if it.Err.Hint() == "" {
				t.Errorf("no hint for %v", it.Err)
			}
		})
	}
}

// TestForms covers the block forms and their repairs, one small text each.
func TestForms(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`
	cases := []struct {
		name    string
		text    string
		steps   int // steps expected; -1: one error
		repairs int
	}{
		{"backticks", "```mcp-request\n" + req + "\n```\n", 1, 0},
		{"tildes", "~~~mcp-request\n" + req + "\n~~~\n", 1, 0},
		{"longer closer", "```mcp-request\n" + req + "\n``````\n", 1, 0},
		{"shorter closer is content, then unclosed", "````mcp-request\n" + req + "\n```\n", 1, 1},
		{"other char closer", "```mcp-request\n" + req + "\n~~~\n", 1, 1},
		{"four-space indent is not a fence", "    ```mcp-request\n    " + req + "\n    ```\n", 0, 0},
		{"crlf", "```mcp-request\r\n" + req + "\r\n```\r\n", 1, 0},
		{"no trailing newline", "```mcp-request\n" + req + "\n```", 1, 0},
		{"unclosed at end", "```mcp-request\n" + req, 1, 1},
		{"bare", "mcp-request\n" + req + "\n", 1, 1},
		{"bare with button", "mcp-request 复制\n" + req + "\n", 1, 1},
		{"bare followed by prose", "mcp-request\nis the tag\n", 0, 0},
		{"bare in a sentence", "use mcp-request\n" + req + "\n", 0, 0},
		{"wrappers", "```mcp-request\nCopy code\n\n" + req + "\n复制\n```\n", 1, 2},
		{"response fence", "```mcp-response\n" + req + "\n```\n", 0, 0},
		{"bare response", "mcp-response\n" + req + "\n", 0, 0},
		{"inside other fence", "````md\n```mcp-request\n" + req + "\n```\n````\n", 0, 0},
		// CommonMark: the python block is closed by the request's closer,
		// so the request is part of it.
		{"other fence takes the next bare closer", "```python\nprint(1)\n\n```mcp-request\n" + req + "\n```\n", 0, 0},
		{"unclosed other fence does not hide", "```python\nprint(1)\n\nmcp-request\n" + req + "\n", 1, 1},
		{"empty", "```mcp-request\n\n```\n", -1, 0},
		{"not json", "```mcp-request\nfs.read a\n```\n", -1, 0},
		{"pretty printed", "```mcp-request\n{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"tools/list\"\n}\n```\n", 1, 0},
		{"info attributes", "```mcp-request {.json}\n" + req + "\n```\n", 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := Parse([]byte(c.text))
			checkItems(t, []byte(c.text), items)
			if c.steps == -1 {
				if len(items) != 1 || items[0].Err == nil {
					t.Fatalf("want one error, got %+v", items)
				}
				return
			}
			if len(items) != c.steps {
				t.Fatalf("want %d steps, got %d items", c.steps, len(items))
			}
			for _, it := range items {
				if it.Err != nil {
					t.Fatalf("error: %v", it.Err)
				}
				if len(it.Step.Repairs) != c.repairs {
					t.Errorf("repairs %+v, want %d", it.Step.Repairs, c.repairs)
				}
			}
		})
	}
}

func TestPositions(t *testing.T) {
	text := "第一行\r\n```mcp-request\r\n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":\"fs.read\",\"arguments\":{\"path\":\"中\",\"line\":0}}}\r\n```\r\n"
	it := parseOne(t, text)
	if it.Err == nil {
		t.Fatal("want an error")
	}
	// The 0 of "line":0 is on line 3; columns count characters.
	want := step.Pos{Offset: strings.Index(text, `0}}}`), Line: 3, Col: 1 + len([]rune(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"中","line":`))}
	if it.Err.Pos != want {
		t.Errorf("pos %+v, want %+v", it.Err.Pos, want)
	}
	if it.Start != len("第一行\r\n") || it.End != len(text) {
		t.Errorf("span [%d,%d)", it.Start, it.End)
	}
}

func TestTools(t *testing.T) {
	dotted, under := Tools(false), Tools(true)
	if len(dotted) != 12 || len(under) != 12 {
		t.Fatalf("want 12 tools, got %d", len(dotted))
	}
	for i, tool := range under {
		if strings.Contains(tool.Name, ".") {
			t.Errorf("underscore name %q", tool.Name)
		}
		if spec, ok := lookupTool(tool.Name); !ok || spec.name != dotted[i].Name {
			t.Errorf("%s does not read back", tool.Name)
		}
		if tool.InputSchema["type"] != "object" || tool.Description == "" {
			t.Errorf("%s: schema %v", tool.Name, tool.InputSchema)
		}
	}
}

// TestReferenceCases are the reference parser's own test inputs
// (DIALECTS.md §2): wrapper lines around the JSON ("copy download" before,
// "extra footer" after), a fenced call, a bare mcp-request line, and the
// refusals of an unknown method and of a request without an id.
func TestReferenceCases(t *testing.T) {
	t.Run("wrapper lines", func(t *testing.T) {
		text := "mcp-request\ncopy download\n{\"jsonrpc\":\"2.0\",\"id\":\"call-wrap-001\",\"method\":\"tools/list\",\"params\":{}}\nextra footer\n"
		it := parseOne(t, text)
		if it.Err != nil {
			t.Fatalf("the reference's wrapped request is refused: %v", it.Err)
		}
		if it.Step.ID != "call-wrap-001" || it.Step.Source.(*Request).Method != "tools/list" {
			t.Fatalf("read %+v", it.Step)
		}
		if got := it.Step.Repairs; len(got) != 2 || !strings.Contains(got[1].What, `"copy download"`) || got[1].Pos.Line != 2 {
			t.Errorf("repairs %+v, want the bare line and the skipped \"copy download\" at line 2", got)
		}
		if strings.Contains(text[it.Start:it.End], "extra footer") {
			t.Errorf("the footer is part of the block: %q", text[it.Start:it.End])
		}
	})
	t.Run("wrapper lines inside a fence", func(t *testing.T) {
		it := parseOne(t, "```mcp-request\ncopy download\n{\"jsonrpc\":\"2.0\",\"id\":\"w2\",\"method\":\"tools/list\",\"params\":{}}\nextra footer\n```\n")
		if it.Err != nil || it.Step.ID != "w2" || len(it.Step.Repairs) != 2 {
			t.Fatalf("got %+v %v", it.Step, it.Err)
		}
	})
	t.Run("fenced call", func(t *testing.T) {
		it := parseOne(t, "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":\"call-001\",\"method\":\"tools/call\",\"params\":{\"name\":\"fs.read\",\"arguments\":{\"path\":\"/abs/path\"}}}\n```\n")
		if it.Err != nil || it.Step.ID != "call-001" || len(it.Step.Ops) != 1 || it.Step.Ops[0].Kind != step.OpRead || len(it.Step.Repairs) != 0 {
			t.Fatalf("got %+v %v", it.Step, it.Err)
		}
	})
	t.Run("bare line", func(t *testing.T) {
		it := parseOne(t, "mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n")
		if it.Err != nil || it.Step.ID != "7" || len(it.Step.Repairs) != 1 {
			t.Fatalf("got %+v %v", it.Step, it.Err)
		}
	})
	t.Run("unknown method", func(t *testing.T) {
		it := parseOne(t, "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":\"m1\",\"method\":\"tools/run\"}\n```\n")
		if it.Err == nil || !strings.Contains(it.Err.Msg, `unknown method "tools/run"`) || it.Err.Source.(*Request).AppCode != CodeInvalidInput || string(it.Err.Source.(*Request).ID) != `"m1"` {
			t.Fatalf("got %+v %v", it.Step, it.Err)
		}
	})
	t.Run("missing id", func(t *testing.T) {
		it := parseOne(t, "```mcp-request\n{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\"}\n```\n")
		if it.Err == nil || !strings.Contains(it.Err.Msg, "no id") || it.Err.Source.(*Request).AppCode != CodeInvalidInput {
			t.Fatalf("got %+v %v", it.Step, it.Err)
		}
	})
}

// TestWrapperRule holds the structural rule's edges: a label is skipped
// only when a JSON object follows; a sentence, a stray brace or a fence
// line is no wrapper; at most four wrapper lines are skipped.
func TestWrapperRule(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`
	for _, c := range []struct {
		name, text string
		steps      int // -1: one error
	}{
		{"chinese button", "mcp-request\n复制代码\n" + req + "\n", 1},
		{"four labels", "mcp-request\njson\ncopy\ndownload\nedit\n" + req + "\n", 1},
		{"five labels", "mcp-request\njson\ncopy\ndownload\nedit\nrun\n" + req + "\n", 0},
		{"a sentence is not a label", "mcp-request\nhere is what I will run now\n" + req + "\n", 0},
		{"label then prose", "mcp-request\ncopy\nwhich is the tag the prompt wants.\n", 0},
		{"fenced label only", "```mcp-request\ncopy download\n```\n", -1},
		{"fenced footer sentence", "```mcp-request\n" + req + "\nI will now list the tools.\n```\n", -1},
		{"marker with button words", "mcp-request copy download\n" + req + "\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			items := Parse([]byte(c.text))
			checkItems(t, []byte(c.text), items)
			if c.steps == -1 {
				if len(items) != 1 || items[0].Err == nil {
					t.Fatalf("want one error, got %+v", items)
				}
				return
			}
			if len(items) != c.steps || (c.steps == 1 && items[0].Err != nil) {
				t.Fatalf("want %d steps, got %+v", c.steps, items)
			}
		})
	}
}
