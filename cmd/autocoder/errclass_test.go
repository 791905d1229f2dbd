package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/index"
	"github.com/autocoder/autocoder/matcher"
	"github.com/autocoder/autocoder/pathpolicy"
	"github.com/autocoder/autocoder/prompt"
	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/reads"
	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/runner"
	"github.com/autocoder/autocoder/shellwords"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// classTable is one instance of every error type in the tree, with the
// class a caller must see and whether it has advice. A new error type
// fails TestEveryErrorTypeHasItsClass until it is added here.
var classTable = []struct {
	err    error
	want   step.Class
	hinted bool
}{
	{&step.Error{C: step.ClassRefused, Msg: "m", Fix: "f"}, step.ClassRefused, true},
	{&step.ParseError{Dialect: "axon", Msg: "m", Fix: "f"}, step.ClassNoBlock, true},

	{&txn.DirtyError{Path: "a", Why: "w"}, step.ClassRefused, true},
	{&txn.OpError{Op: &step.Op{}, Err: &txn.ExistsError{Path: "a", Fix: "f"}}, step.ClassStepFailed, true},
	{&txn.NotFoundError{Path: "a", Fix: "f"}, step.ClassStepFailed, true},
	{&txn.ExistsError{Path: "a", Fix: "f"}, step.ClassStepFailed, true},
	{&txn.KindError{Path: "a", Is: "a folder", Fix: "f"}, step.ClassStepFailed, true},
	{&txn.ConflictPathError{Path: "a/b", File: "a"}, step.ClassStepFailed, true},
	{&txn.BusyError{Holder: "pid 1"}, step.ClassRefused, true},
	{&txn.ProgramRefusedError{Command: "rm", Reason: "off"}, step.ClassRefused, true},
	{&txn.VerifyError{Output: "o", Err: errors.New("exit 1")}, step.ClassStepFailed, true},
	{&txn.BranchError{Name: "b", Why: "w", Fix: "f"}, step.ClassUsage, true},
	{&txn.UndoRefusedError{Why: "w", Fix: "f"}, step.ClassRefused, true},
	{&txn.NothingError{Why: "w", Fix: "f"}, step.ClassStepFailed, true},
	{&txn.CancelledError{Err: context.Canceled}, step.ClassStepFailed, true},
	{&txn.ObstacleError{Path: "a", What: "a folder"}, step.ClassRefused, true},
	{&txn.DuplicatePathError{First: "a", Second: "./a", Path: "a"}, step.ClassStepFailed, true},
	{&txn.AmbiguousStepError{ID: "axon-1", Branch: "autocoder/main", Candidates: []step.LogEntry{{Commit: strings.Repeat("a", 40)}}}, step.ClassUsage, true},

	{&pathpolicy.RefusedError{Path: "a", Why: "w", Fix: "f"}, step.ClassRefused, true},
	{&txn.PreconditionError{Check: "c", Why: "w", Fix: "f"}, step.ClassPrecondition, true},

	{&gitops.LockedError{Path: "/r/.git/index.lock"}, step.ClassRefused, true},
	{&gitops.RefChangedError{Ref: "refs/heads/x"}, step.ClassRefused, true},
	{&gitops.UnsupportedError{What: "w", Why: "y"}, step.ClassRefused, true},
	{&index.UnsupportedIndexError{Path: "p", Reason: "r", Fix: "f"}, step.ClassRefused, true},
	{&gitops.NotRepoError{Dir: "/d"}, step.ClassUsage, true},
	{&gitops.IdentityError{Which: "author"}, step.ClassUsage, true},
	{&gitops.ConflictError{Path: "a", Why: "w"}, step.ClassStepFailed, false},
	{&gitops.InProgressError{State: "a rebase"}, step.ClassRefused, true},
	{&gitops.LockHeldError{Holder: "pid 1"}, step.ClassRefused, true},

	{&matcher.NoMatchError{}, step.ClassStepFailed, true},
	{&matcher.AmbiguousMatchError{Lines: []int{1, 2}}, step.ClassStepFailed, true},
	{&matcher.EmptyOldError{}, step.ClassStepFailed, true},
	{&matcher.NoChangeError{}, step.ClassStepFailed, true},
	{&matcher.BinaryError{In: "file"}, step.ClassStepFailed, true},
	{&matcher.EncodingError{In: "file"}, step.ClassStepFailed, true},
	{&matcher.IndentError{Line: 2, What: "w", To: '\t', ToUnit: 1}, step.ClassStepFailed, true},
	{&matcher.EditError{Err: &matcher.NoChangeError{}}, step.ClassStepFailed, true},

	{&config.Error{File: "autocoder.toml", Msg: "unknown key", Fix: "did you mean x?"}, step.ClassUsage, true},
	{&reads.NotFoundError{Path: "a", Fix: "f"}, step.ClassStepFailed, true},
	{&step.OptionError{Option: "line", Reason: "r", Fix: "f"}, step.ClassUsage, true},
	{&reads.BinaryError{Path: "a", Fix: "f"}, step.ClassStepFailed, true},
	{&runner.StartError{Command: "c", Err: errors.New("e"), Fix: "f"}, step.ClassProgramFailed, true},
	{&tjson.SyntaxError{Msg: "m", Fix: "f"}, step.ClassNoBlock, true},
	{&shellwords.NotSimpleError{Text: "a | b"}, step.ClassRefused, true},
	{&shellwords.QuoteError{Char: '"'}, step.ClassUsage, true},
	{&prompt.UnknownError{What: "dialect", Name: "x"}, step.ClassUsage, true},

	{&usageError{msg: "m", try: "t"}, step.ClassUsage, true},
	{&noBlocksError{}, step.ClassNoBlock, true},
}

// Every error type a caller acts on has its class, and its hint through
// step.HintOf: the table holds the types callers act on, with the class
// each must have; and every exported error type of the tree has a Class()
// method, or wraps an error that has one (Unwrap).
func TestEveryErrorTypeHasItsClass(t *testing.T) {
	for _, c := range classTable {
		name := strings.TrimPrefix(fmt.Sprintf("%T", c.err), "*")
		if got := step.ClassOf(c.err); got != c.want {
			t.Errorf("%s: class %s, want %s", name, got, c.want)
		}
		if got := step.ClassOf(fmt.Errorf("wrapped: %w", c.err)); got != c.want {
			t.Errorf("%s wrapped: class %s, want %s", name, got, c.want)
		}
		if h := step.HintOf(c.err); c.hinted && h == "" {
			t.Errorf("%s: no hint through step.HintOf", name)
		}
	}
	for _, name := range unclassed(t, "../..") {
		t.Errorf("error type %s has no Class() method: give it one (and a Hint() where there is advice)", name)
	}
}

// blankHint is an error whose hint is what it holds, white space or not.
type blankHint struct{ hint string }

func (e *blankHint) Error() string { return "failed" }
func (e *blankHint) Hint() string  { return e.hint }

// A hint that is only white space is no hint, and one with white space
// around it is trimmed, in step.HintOf, the one place that decides: no
// writer then renders an empty "hint:". report.Error writes no hint line
// for a blank line inside a hint (a program's output).
func TestHintNeverBlank(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&blankHint{""}, ""},
		{&blankHint{" \n\t\n"}, ""},
		{&blankHint{"do this\n"}, "do this"},
		{fmt.Errorf("outer: %w", &blankHint{"\n"}), ""},
		{&step.Error{Msg: "outer", Fix: " ", Err: &blankHint{"inner advice"}}, "inner advice"},
		{errors.Join(&blankHint{"\n"}, &blankHint{"a"}), "a"},
		{&txn.VerifyError{Output: "\n \n", Err: errors.New("exit status 1")}, ""},
	} {
		got := step.HintOf(c.err)
		if c.want == "" && strings.TrimSpace(got) == "" && got != "" {
			t.Errorf("HintOf(%#v) = %q: white space only", c.err, got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("HintOf(%#v) = %q, want %q", c.err, got, c.want)
		}
		if strings.HasSuffix(got, "\n") || strings.HasPrefix(got, "\n") {
			t.Errorf("HintOf(%#v) = %q: not trimmed", c.err, got)
		}
	}
	if h := step.HintOf(&txn.VerifyError{Output: "\n", Err: errors.New("exit status 1")}); !strings.Contains(h, "printed nothing") {
		t.Errorf("a verify command that printed nothing: hint %q does not say so", h)
	}
	var b strings.Builder
	report.Error(&b, "step failed", "fix this:\nline one\n\n   \nline two\n")
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if strings.TrimSpace(strings.TrimPrefix(line, "autocoder: hint:")) == "" {
			t.Errorf("report.Error wrote an empty hint line:\n%s", b.String())
		}
	}
	if strings.Count(b.String(), "autocoder: hint: ") != 3 {
		t.Errorf("report.Error lost a hint line:\n%s", b.String())
	}
}

// unclassed lists "pkg.Type" for every exported type of the module's
// non-test files that has an Error() string method but neither a Class()
// nor an Unwrap() method.
func unclassed(t *testing.T, root string) []string {
	methods := map[string]map[string]bool{} // "dir.Type" -> method names
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			typ := fn.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
				key := filepath.Base(filepath.Dir(p)) + "." + id.Name
				if methods[key] == nil {
					methods[key] = map[string]bool{}
				}
				methods[key][fn.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for name, m := range methods {
		if m["Error"] && !m["Class"] && !m["Unwrap"] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
