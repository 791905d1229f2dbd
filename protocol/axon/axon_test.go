package axon

import (
	"bytes"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"strings"
	"testing"
	"unicode/utf8"
)

// summary renders an item on one line so that table cases can state it.
func summary(it step.Item) string {
	if it.Err != nil {
		return fmt.Sprintf("error %d:%d %s", it.Err.Pos.Line, it.Err.Pos.Col, it.Err.Msg)
	}
	s := it.Step
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d:%d %q", s.ID, s.Pos.Line, s.Pos.Col, s.Reason)
	if s.Summary != "" {
		fmt.Fprintf(&b, " summary=%q", s.Summary)
	}
	for _, c := range s.Checks {
		switch c.Kind {
		case step.CheckFilesExist:
			fmt.Fprintf(&b, " files_exist%q", c.Paths)
		default:
			fmt.Fprintf(&b, " %s(%q)", c.Kind, c.Want)
		}
	}
	for _, op := range s.Ops {
		switch op.Kind {
		case step.OpWrite, step.OpAppend:
			fmt.Fprintf(&b, " %s(%s,%q", op.Kind, op.Path, op.Content)
			if op.MustExist {
				b.WriteString(",must_exist")
			}
			if !op.TextLines {
				b.WriteString(",not_text_lines")
			}
			b.WriteString(")")
		case step.OpReplace:
			for _, e := range op.Edits {
				fmt.Fprintf(&b, " replace(%s,%q->%q)", op.Path, e.Old, e.New)
			}
		case step.OpMove:
			fmt.Fprintf(&b, " move(%s->%s)", op.Path, op.To)
		default:
			fmt.Fprintf(&b, " %s(%s)", op.Kind, op.Path)
		}
	}
	for _, p := range s.Programs {
		fmt.Fprintf(&b, " run(%q)", p.Command)
	}
	for _, r := range s.Repairs {
		fmt.Fprintf(&b, " repair(%q)", r.What)
	}
	if s.StopRun {
		b.WriteString(" stop_run")
	}
	return b.String()
}

// mkact writes an act and its parameter blocks with a fence of five tildes.
func mkact(name string, params ...string) string {
	s := "~~~~~act\n" + name + "\n~~~~~\n"
	for _, p := range params {
		s += "~~~~~\n" + p + "~~~~~\n"
	}
	return s
}

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"no plan", "Just prose.\n```go\nx\n```\n", nil},
		{"seed write_file", "好的。\n\n~~~~~act\nwrite_file\n~~~~~\n~~~~~path\ndocs/example.md\n~~~~~\n~~~~~content\n# Python Guide\n\nHere is a script:\n```python\nprint(\"hello world\")\n```\n~~~~~\n",
			[]string{"axon-1 3:1 \"\" write(docs/example.md,\"# Python Guide\\n\\nHere is a script:\\n```python\\nprint(\\\"hello world\\\")\\n```\\n\")"}},
		{"seed replace strips one newline", mkact("replace", "src/main.py\n", "    def hello():\n        pass\n\n", "    def hello():\n        print(\"Fixed\")\n"),
			[]string{`axon-1 1:1 "" replace(src/main.py,"    def hello():\n        pass\n"->"    def hello():\n        print(\"Fixed\")")`}},
		{"patch_file is replace", mkact("patch_file", "a.go\n", "x\n", "y\n"),
			[]string{`axon-1 1:1 "" replace(a.go,"x"->"y")`}},
		{"empty new text deletes", mkact("replace", "a.go\n", "x\n", ""),
			[]string{`axon-1 1:1 "" replace(a.go,"x"->"")`}},
		{"check_files_exist then replace", mkact("check_files_exist", "config.json\n\n  utils/helpers.py \n") + "\nthen\n\n" + mkact("replace", "config.json\n", "    \"debug\": false\n", "    \"debug\": true\n"),
			[]string{
				`axon-1 1:1 "" files_exist["config.json" "utils/helpers.py"] stop_run`,
				`axon-2 12:1 "" replace(config.json,"    \"debug\": false"->"    \"debug\": true")`,
			}},
		{"check_cwd_match keeps ~", mkact("check_cwd_match", "~/src/proj\n"),
			[]string{`axon-1 1:1 "" cwd_match("~/src/proj") stop_run`}},
		{"content: empty block writes nothing, one empty line writes a newline",
			mkact("write_file", "a\n", "") + mkact("write_file", "b\n", "\n") + mkact("write_file", "c\n", "x\n\n"),
			[]string{
				`axon-1 1:1 "" write(a,"")`,
				`axon-2 9:1 "" write(b,"\n")`,
				`axon-3 18:1 "" write(c,"x\n\n")`,
			}},
		{"inline args", "~~~~~act\nwrite_file \"my file.txt\"\n~~~~~\n~~~~~\nhi\n~~~~~\n~~~~~act\nmove_file a\\ b.txt 'c d.txt'\n~~~~~\n",
			[]string{
				`axon-1 1:1 "" write(my file.txt,"hi\n")`,
				`axon-2 7:1 "" move(a b.txt->c d.txt)`,
			}},
		{"inline args before blocks", "~~~~~act\nreplace src/a.py\n~~~~~\n~~~~~\nold\n~~~~~\n~~~~~\nnew\n~~~~~\n",
			[]string{`axon-1 1:1 "" replace(src/a.py,"old"->"new")`}},
		{"other acts", mkact("append_file", "log.txt\n", "line\n") + mkact("delete_file", "old.txt\n") + mkact("read_file", "README.md\n") + "~~~~~act\nrun_command go test ./... && echo 'ok'\n~~~~~\n" + mkact("run_command", "make\nmake test\n"),
			[]string{
				`axon-1 1:1 "" append(log.txt,"line\n",must_exist)`,
				`axon-2 10:1 "" delete(old.txt)`,
				`axon-3 16:1 "" read(README.md)`,
				`axon-4 22:1 "" run("go test ./... && echo 'ok'")`,
				`axon-5 25:1 "" run("make\nmake test")`,
			}},
		{"git_commit groups", mkact("write_file", "a\n", "1\n") + mkact("git_add", "a\nb\n") + mkact("patch_file", "b\n", "x\n", "y\n") + mkact("git_commit", "Add a, fix b\n\nBody line.\n") + mkact("delete_file", "c\n") + "~~~~~act\ngit_commit -m\n~~~~~\n~~~~~\nRemove c\n~~~~~\n" + mkact("read_file", "d\n"),
			[]string{
				`axon-1 1:1 "Add a, fix b" summary="Body line." write(a,"1\n") replace(b,"x"->"y") repair("git_add: autocoder stages what it writes")`,
				`axon-2 37:1 "Remove c" delete(c) repair("git_commit: the inline argument -m is ignored: the act reads its blocks only")`,
				`axon-3 49:1 "" read(d)`,
			}},
		{"git_commit message inline: an apostrophe is an open quote", mkact("write_file", "a\n", "1\n") + "~~~~~act\ngit_commit don't break\n~~~~~\n",
			[]string{`axon-1 1:1 "" write(a,"1\n")`, `error 11:15 act block: the ' quote is never closed`}},
		{"git_commit message inline only: no message", mkact("write_file", "a\n", "1\n") + "~~~~~act\ngit_commit \"Add a\"\n~~~~~\n",
			[]string{`error 10:1 git_commit takes 1 parameter (message) but has 0; its group of 1 act (lines 1-1) is not applied`}},
		{"check in a group stays a check", mkact("check_files_exist", "a\n") + mkact("write_file", "a\n", "1\n") + mkact("git_commit", "msg\n"),
			[]string{`axon-1 1:1 "msg" files_exist["a"] write(a,"1\n") stop_run`}},
		{"standalone git_add changes nothing", "~~~~~act\ngit_add a.py b.py\n~~~~~\n",
			[]string{`axon-1 1:1 "" repair("git_add: autocoder stages what it writes")`}},
		{"end is an act that ignores its arguments", mkact("delete_file", "a\n") + mkact("end", "prose\n") + mkact("delete_file", "b\n"),
			[]string{`axon-1 1:1 "" delete(a)`, `axon-2 7:1 "" repair("end: its 1 argument ignored")`, `axon-3 13:1 "" delete(b)`}},
		{"unknown act stops the plan", mkact("delete_file", "z\n") + mkact("write_fle", "a\n", "1\n") + mkact("delete_file", "b\n"),
			[]string{`axon-1 1:1 "" delete(z)`, `error 8:1 unknown act "write_fle"; the plan stops here: 1 more act (from line 16) not applied`}},
		{"too few parameters", mkact("write_file", "a\n") + mkact("delete_file", "b\n"),
			[]string{`error 1:1 write_file takes 2 parameters (path, content) but has 1`, `axon-1 7:1 "" delete(b)`}},
		{"too many parameters", mkact("delete_file", "a\n", "b\n"),
			[]string{`error 1:1 delete_file takes 1 parameter (path) but has 2; the first extra one is the block at line 7`}},
		{"unclosed param block", mkact("delete_file", "a\n") + "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\na\n~~~~~\n~~~~~content\nno end",
			[]string{`axon-1 1:1 "" delete(a)`, `error 13:1 unclosed ~~~~~ block: the text ends before its closing fence`}},
		{"unclosed act block", "~~~~~act\nwrite_file\n~~~~~path\n",
			[]string{`error 1:1 unclosed ~~~~~ block: the text ends before its closing fence`}},
		{"act block of several lines is one command line", "~~~~~act\npatch_file\n  src/a b.py\n~~~~~\n~~~~~python\nx\n~~~~~\n~~~~~python\ny\n~~~~~\n" +
			"~~~~~act\nwrite_file\n\"my\nfile.txt\"\n~~~~~\n~~~~~\nhi\n~~~~~\n",
			[]string{`axon-1 1:1 "" replace(src/a,"b.py"->"x")`, `error 1:1 patch_file takes 3 parameters (path, old_string, new_string) but has 4; the first extra one is the block at line 8`,
				`error 12:1 write_file: the path holds more than one line`}[1:]},
		{"hybrid: inline then blocks", "~~~~~act\npatch_file\nsrc/a.py\n~~~~~\n~~~~~python\nx\n~~~~~\n~~~~~python\ny\n~~~~~\n",
			[]string{`axon-1 1:1 "" replace(src/a.py,"x"->"y")`}},
		{"hybrid: too many arguments names the extra block", "~~~~~act\nwrite_file a.txt\n~~~~~\n~~~~~\nA\n~~~~~\n~~~~~\nB\n~~~~~\n",
			[]string{`error 1:1 write_file takes 2 parameters (path, content) but has 3; the first extra one is the block at line 7`}},
		{"hybrid: too many inline arguments", "~~~~~act\nmove_file a b c\n~~~~~\n",
			[]string{`error 1:1 move_file takes 2 parameters (source, destination) but has 3; the first extra one is the inline argument "c"`}},
		{"exclusive: inline arguments win, blocks ignored", "~~~~~act\ndelete_file old.txt\n~~~~~\n~~~~~\nother.txt\n~~~~~\n",
			[]string{`axon-1 1:1 "" delete(old.txt) repair("delete_file: the 1 block after it (from line 4) is ignored: the act has inline arguments")`}},
		{"run_command: the act block after the name is the command", "~~~~~act\nrun_command\nmkdir -p locales/zh && touch 'a b'\n~~~~~\n",
			[]string{`axon-1 1:1 "" run("mkdir -p locales/zh && touch 'a b'")`}},
		{"run_command \"COMMAND\": the quoted string is the command line, as the prompt teaches", "~~~~~act\nrun_command \"python -m pytest -q\"\n~~~~~\n" +
			"~~~~~act\nrun_command 'go test ./...'\n~~~~~\n" + "~~~~~act\nrun_command \"echo \\\"a b\\\"\"\n~~~~~\n" +
			"~~~~~act\nrun_command\n  \"make test\"\n~~~~~\n" + "~~~~~act\nrun_command \"go vet\" ./...\n~~~~~\n",
			[]string{`axon-1 1:1 "" run("python -m pytest -q")`, `axon-2 4:1 "" run("go test ./...")`, `axon-3 7:1 "" run("echo \"a b\"")`,
				`axon-4 10:1 "" run("make test")`, `axon-5 14:1 "" run("\"go vet\" ./...")`}},
		{"block only: log_thought", "~~~~~act\nlog_thought ignored words\n~~~~~\n~~~~~\nThe parser needs a test.\n~~~~~\n",
			[]string{`axon-1 1:1 "" summary="The parser needs a test." repair("log_thought: the inline arguments ignored words are ignored: the act reads its blocks only")`}},
		{"echo, list_files, search_files, git_status, git_init", mkact("echo", "hello\n") + "~~~~~act\nlist_files src\n~~~~~\n" + mkact("list_files") +
			"~~~~~act\nsearch_files 'def main' src\n~~~~~\n" + mkact("git_status") + mkact("git_init"),
			[]string{`axon-1 1:1 "" echo()`, `axon-2 7:1 "" list(src)`, `axon-3 10:1 "" list(.)`,
				`axon-4 13:1 "" search(src)`, `axon-5 16:1 "" status()`,
				`axon-6 19:1 "" repair("git_init: nothing to do: autocoder works inside an existing git repository")`}},
		{"git_status takes no parameter", mkact("git_status", "x\n"),
			[]string{`error 1:1 git_status takes no parameter but has 1; the first extra one is the block at line 4`}},
		{"a plan of end only is one step with nothing to do", "```act\nend\n```\n",
			[]string{`axon-1 1:1 ""`}},
		{"empty act block", "~~~~~act\n\n~~~~~\n",
			[]string{`error 1:1 the act block names no act`}},
		{"unterminated quote", "~~~~~act\nwrite_file \"a.txt\n~~~~~\n~~~~~\nx\n~~~~~\n",
			[]string{`error 2:12 act block: the " quote is never closed`}},
		{"columns count characters", "~~~~~act\nread_file 好 'x\n~~~~~\n",
			[]string{`error 2:13 act block: the ' quote is never closed`}},
		{"empty path", mkact("delete_file", "  \n"),
			[]string{`error 4:1 delete_file: the path is empty`}},
		{"two-line path", mkact("write_file", "a\nb\n", "x\n"),
			[]string{`error 4:1 write_file: the path block holds more than one line`}},
		{"empty check list", mkact("check_files_exist", "\n\n"),
			[]string{`error 1:1 check_files_exist lists no file`}},
		{"group with a bad act is not applied", mkact("write_file", "a\n", "1\n") + mkact("delete_file") + mkact("git_commit", "msg\n") + mkact("delete_file", "z\n"),
			[]string{
				`error 10:1 delete_file takes 1 parameter (path) but has 0`,
				`error 13:1 git_commit: its group of 2 acts (lines 1-10) is not applied because 1 of its acts could not be read`,
				`axon-1 19:1 "" delete(z)`,
			}},
		{"a plug-in act in a group: the acts before it are applied", mkact("write_file", "a\n", "1\n") + mkact("bump_version") + mkact("git_commit", "msg\n"),
			[]string{
				`axon-1 1:1 "" write(a,"1\n")`,
				`error 11:1 unknown act "bump_version"; the plan stops here: 1 more act (from line 13) not applied`,
			}},
		{"git_commit without message", mkact("delete_file", "a\n") + mkact("git_commit", "\n"),
			[]string{`error 10:1 git_commit: the commit message is empty; its group of 1 act (lines 1-1) is not applied`}},
		{"crlf", strings.ReplaceAll(mkact("write_file", "a.txt\n", "x\n\ny\n")+mkact("replace", "a.txt\n", "x\n", "z\n"), "\n", "\r\n"),
			[]string{`axon-1 1:1 "" write(a.txt,"x\n\ny\n")`, `axon-2 12:1 "" replace(a.txt,"x"->"z")`}},
		{"indented fences lose their indent", "  ~~~~~act\n  write_file\n  ~~~~~\n  ~~~~~\n  a\n  ~~~~~\n  ~~~~~\n    x\n   y\n  ~~~~~\n",
			[]string{`axon-1 1:3 "" write(a,"  x\n y\n")`}},
		{"backtick plan: tildes are content", "```act\nwrite_file\n```\n```\nnotes.md\n```\n```\n~~~\nx\n~~~\n```\n",
			[]string{"axon-1 1:1 \"\" write(notes.md,\"~~~\\nx\\n~~~\\n\")"}},
		{"plan char from first act: ``` inside content", mkact("write_file", "r.md\n", "```sh\nls\n```\n"),
			[]string{"axon-1 1:1 \"\" write(r.md,\"```sh\\nls\\n```\\n\")"}},
		{"act quoted in a ``` example before the plan is prose", "Example:\n```\n~~~~~act\ndelete_file\n~~~~~\n~~~~~\nall\n~~~~~\n```\n" + mkact("delete_file", "real\n"),
			[]string{`axon-1 10:1 "" delete(real)`}},
		{"4 tildes inside 5-tilde content", mkact("write_file", "doc.md\n", "~~~~\ncode\n~~~~\n"),
			[]string{`axon-1 1:1 "" write(doc.md,"~~~~\ncode\n~~~~\n")`}},
		{"case slip gets a suggestion", mkact("Write_File", "a\n", "x\n"),
			[]string{`error 2:1 unknown act "Write_File"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := Parse([]byte(c.text))
			var got []string
			for _, it := range items {
				got = append(got, summary(it))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("Parse:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(c.want, "\n     "))
			}
			checkItems(t, []byte(c.text), items)
		})
	}
}

func TestParseErrorDetails(t *testing.T) {
	cases := []struct {
		name, text, quote string
		hint              []string // substrings of the hint
	}{
		{"unknown", mkact("write_fle", "a\n", "1\n"), "write_fle", []string{"check_files_exist", "write_file", "git_commit", "end"}},
		{"suggestion", mkact("WriteFile", "a\n", "1\n"), "WriteFile", []string{"did you mean write_file?"}},
		{"unclosed", mkact("delete_file") + "~~~~~~path\nx\n~~~~~\n", "~~~~~~path", []string{"line 4", "6 '~' (~~~~~~)"}},
		{"too few", mkact("replace", "a\n", "b\n"), "replace", []string{"in order: path, old_string, new_string", "a line of ~~~~~"}},
		{"too many in content act", mkact("write_file", "a\n", "b\n", "c\n"), "write_file", []string{"fence it with more"}},
		{"quote", "~~~~~act\nread_file 'x\n~~~~~\n", "read_file 'x", []string{"close the ' quote"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := Parse([]byte(c.text))
			if len(items) != 1 || items[0].Err == nil {
				t.Fatalf("want one error, got %v", items)
			}
			e := items[0].Err
			if e.Quote != c.quote {
				t.Errorf("quote %q, want %q", e.Quote, c.quote)
			}
			for _, h := range c.hint {
				if !strings.Contains(e.Hint(), h) {
					t.Errorf("hint %q lacks %q", e.Hint(), h)
				}
			}
			if e.Dialect != Dialect {
				t.Errorf("dialect %q", e.Dialect)
			}
		})
	}
}

func TestSource(t *testing.T) {
	items := Parse([]byte(mkact("write_file", "a\n", "1\n") + mkact("git_add", "a\n") + mkact("git_commit", "m\n")))
	src, ok := items[0].Step.Source.(Source)
	if !ok || len(src.Acts) != 3 {
		t.Fatalf("source %#v", items[0].Step.Source)
	}
	want := []Act{{"write_file", "write_file a", 1}, {"git_add", "git_add a", 10}, {"git_commit", "git_commit m", 16}}
	for i := range want {
		if src.Acts[i] != want[i] {
			t.Errorf("act %d: %+v, want %+v", i, src.Acts[i], want[i])
		}
	}
}

// checkItems asserts what every Parse result holds: items in order and
// disjoint, within the text, exactly one of Step and Err, positions whose
// line and column match their offsets, unique step IDs.
func checkItems(t *testing.T, text []byte, items []step.Item) {
	t.Helper()
	prev := 0
	ids := map[string]bool{}
	for i, it := range items {
		if it.Start < prev || it.End < it.Start || it.End > len(text) {
			t.Fatalf("item %d span [%d,%d) out of order or range (previous ends %d, text %d)", i, it.Start, it.End, prev, len(text))
		}
		prev = it.End
		if (it.Step == nil) == (it.Err == nil) {
			t.Fatalf("item %d: want exactly one of Step and Err: %+v", i, it)
		}
		var ps []step.Pos
		if it.Err != nil {
			ps = append(ps, it.Err.Pos)
			if it.Err.Hint() == "" || it.Err.Dialect != Dialect {
				t.Fatalf("item %d: error without hint or dialect: %+v", i, it.Err)
			}
		} else {
			s := it.Step
			if ids[s.ID] || s.Dialect != Dialect {
				t.Fatalf("item %d: duplicate id or wrong dialect: %s %s", i, s.ID, s.Dialect)
			}
			ids[s.ID] = true
			ps = append(ps, s.Pos)
			for _, op := range s.Ops {
				ps = append(ps, op.Pos)
				for _, e := range op.Edits {
					ps = append(ps, e.Pos)
				}
			}
			for _, c := range s.Checks {
				ps = append(ps, c.Pos)
			}
			for _, p := range s.Programs {
				ps = append(ps, p.Pos)
			}
		}
		for _, p := range ps {
			if p.Offset < it.Start || p.Offset >= it.End {
				t.Fatalf("item %d: position %+v outside the item [%d,%d)", i, p, it.Start, it.End)
			}
			line := 1 + bytes.Count(text[:p.Offset], []byte{'\n'})
			// Columns count characters, as tjson's do: a model or a person
			// counts the characters of a line, not its UTF-8 bytes.
			col := 1 + utf8.RuneCount(text[bytes.LastIndexByte(text[:p.Offset], '\n')+1:p.Offset])
			if line != p.Line || col != p.Col {
				t.Fatalf("item %d: position %+v, but offset %d is %d:%d", i, p, p.Offset, line, col)
			}
		}
	}
}

// FuzzParse checks Parse's properties (checkItems) on any text, seeded with
// plans that exercise every act and error.
func FuzzParse(f *testing.F) {
	f.Add([]byte(mkact("write_file", "a\n", "x\n") + mkact("git_commit", "m\n")))
	f.Add([]byte("~~~~~act\nreplace 'a b'\n~~~~~\n~~~~~\nx\n~~~~~\n~~~~~\ny\n~~~~~\n"))
	f.Add([]byte("```act\nrun_command ls\n```\n~~~~~act\nend\n~~~~~\n"))
	f.Add([]byte("  ~~~~~act\r\n  check_files_exist\r\n  ~~~~~\r\n~~~~~\r\na\r\n"))
	f.Add([]byte(mkact("end") + mkact("nope")))
	f.Fuzz(func(t *testing.T, text []byte) {
		checkItems(t, text, Parse(text))
	})
}

// A step of one act takes the plan's title: the last Markdown heading
// before the plan, or the first sentence of the paragraph right before it;
// an acknowledgement, or a code block before the plan, gives none.
func TestPlanTitle(t *testing.T) {
	act := mkact("write_file", "a\n", "x\n")
	for _, c := range []struct{ text, want string }{
		{"# Add a login form\n\nSome words.\n\n" + act, "Add a login form"},
		{"## Fix the **parser** ##\n" + act, "Fix the **parser**"},
		{"I'll add a login form to the app. It has two fields.\n\n" + act, "I'll add a login form to the app"},
		{"Rename the helper so\nit reads better:\n" + act, "Rename the helper so it reads better"},
		{"Sure! Here is the plan.\n\n" + act, ""},
		// An acknowledgement before the sentence that says what the plan
		// does is passed over, not taken for the whole paragraph.
		{"Certainly. I'll add a greeting function.\n\n" + act, "I'll add a greeting function"},
		{"Okay, let me add the greeting.\n\n" + act, "let me add the greeting"},
		{"Sure! Here's the plan to add a greeting:\n\n" + act, ""},
		{"好的，我来给 greet 加上默认参数。\n" + act, "我来给 greet 加上默认参数"},
		// A list item names its own acts, not the plan's.
		{"1. Create the config:\n\n" + act, ""},
		{"- Sure. Write the file.\n" + act, ""},
		{"好的。\n\n" + act, ""},
		{"修复登录表单的校验。然后测试。\n" + act, "修复登录表单的校验"},
		{"Example:\n```\ncode\n```\n" + act, ""},
		{"```py\n# not a heading\n```\n" + act, ""},
		{act, ""},
		// Another dialect's block right before the plan is not its title
		// (a mixed answer's Axon step took a JSON block's text for its
		// commit subject).
		{"Add b.\n\n#####--\n{\"metadata\": {\"step_id\": \"j1\", \"reason\": \"Add b\"}, \"file_operations\": []}\n--#####\n\n" + act, ""},
		{"Add b.\n#####--\n{\"type\": \"operate\",\n \"file_operations\": []}\n--#####\n" + act, ""},
		{"Write it.\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"fs.write\",\"arguments\":{}}}\n\n" + act, ""},
	} {
		items := Parse([]byte(c.text))
		if len(items) != 1 || items[0].Step == nil {
			t.Fatalf("%q: %d items", c.text, len(items))
		}
		if got := items[0].Step.Reason; got != c.want {
			t.Errorf("%q: reason %q, want %q", c.text, got, c.want)
		}
	}
	// An act after another dialect's block starts a plan of its own: its
	// title is the text before it, not the first plan's.
	two := "# Write a\n\n" + act + "Then the JSON part:\n\n#####--\n{\"file_operations\": []}\n--#####\n\nNow append a line to a.\n\n" +
		mkact("append_file", "a\n", "y\n") + "\nAnd one more line.\n\n" + mkact("append_file", "a\n", "z\n")
	items2 := Parse([]byte(two))
	var reasons []string
	for _, it := range items2 {
		reasons = append(reasons, it.Step.Reason)
	}
	if want := []string{"Write a", "Now append a line to a", "Now append a line to a"}; strings.Join(reasons, "|") != strings.Join(want, "|") {
		t.Errorf("reasons %q, want %q", reasons, want)
	}
	// A git_commit group keeps its message.
	items := Parse([]byte("# Title\n" + act + mkact("git_commit", "Write a\n")))
	if len(items) != 1 || items[0].Step.Reason != "Write a" {
		t.Errorf("git_commit group: %+v", items[0].Step)
	}
}
