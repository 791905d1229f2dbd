package mcp

import (
	"bytes"
	"encoding/json"
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
	"strings"
	"testing"
)

// feedbackInput is a response whose blocks the results below answer, in
// order.
const feedbackInput = "```mcp-request\n" + `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"list","method":"tools/list"}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-read","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a.txt","lines":"1-2"}}}` + "\n```\n" +
	"mcp-request\n" + `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fs.write","arguments":{"path":"a.txt","mode":"overwrite","content":"<b>&</b>\n"}}}` + "\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-batch","method":"tools/call","params":{"name":"fs.writeBatch","arguments":{"files":[{"path":"x","content":"1"},{"path":"y","content":"2"}]}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-dry","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"a.txt","mode":"append","content":"z\n"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-run","method":"tools/call","params":{"name":"process.run","arguments":{"command":"go","args":["test"]}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-refused","method":"tools/call","params":{"name":"shell.exec","arguments":{"command":"rm -rf /"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-conflict","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"a.txt","mode":"overwrite","content":"","expectedSha256":"` + sha0 + `"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-missing","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"nope.txt"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-forbidden","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"/etc/passwd","mode":"overwrite","content":"x"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-badline","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a.txt","line":99}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-skipped","method":"tools/call","params":{"name":"fs.rm","arguments":{"path":"a.txt"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-internal","method":"tools/call","params":{"name":"fs.mkdir","arguments":{"path":"d"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-invalid","method":"tools/call","params":{"name":"fs.mv","arguments":{"src":"a","dest":"b"}}}` + "\n```\n" +
	"```mcp-request\n" + `{"jsonrpc":"2.0","id":"call-broken",}` + "\n```\n"

const sha0 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// feedbackResults builds what an engine would report for feedbackInput.
func feedbackResults(t *testing.T) []step.Result {
	t.Helper()
	items := Parse([]byte(feedbackInput))
	if len(items) != 16 {
		t.Fatalf("want 16 items, got %d", len(items))
	}
	stepN := func(i int) *step.Step {
		if items[i].Step == nil {
			t.Fatalf("item %d: %v", i, items[i].Err)
		}
		return items[i].Step
	}
	res := func(i int, st step.Status) step.Result {
		return step.Result{Step: stepN(i), StepID: stepN(i).ID, Status: st}
	}
	var rs []step.Result
	rs = append(rs, res(0, step.StatusUnchanged), res(1, step.StatusUnchanged))
	r := res(2, step.StatusRead)
	r.Ops = []step.OpResult{{Kind: step.OpRead, Path: "a.txt", Status: step.StatusRead, Output: "line one\n第二行"}}
	rs = append(rs, r)
	r = res(3, step.StatusApplied)
	r.Commit = "0123456789abcdef0123456789abcdef01234567"
	r.Ops = []step.OpResult{{Kind: step.OpWrite, Path: "a.txt", Status: step.StatusApplied, Message: "replaced an existing file"}}
	rs = append(rs, r)
	r = res(4, step.StatusApplied)
	r.Commit = "89abcdef0123456789abcdef0123456789abcdef"
	rs = append(rs, r)
	r = res(5, step.StatusPlanned)
	r.Ops = []step.OpResult{{Kind: step.OpAppend, Path: "a.txt", Status: step.StatusPlanned, Diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n x\n+z\n"}}
	rs = append(rs, r)
	r = res(6, step.StatusApplied)
	r.Programs = []step.ProgramResult{{Name: "go", Status: "success", Stdout: "ok  \tpkg\t0.1s\n", ReturnCode: 0, Runtime: 0.5}}
	rs = append(rs, r)
	r = res(7, step.StatusFailed)
	r.Class, r.Reason, r.Error, r.Hint = step.ClassRefused, step.ReasonRefused, "shell.exec refused: programs are off", "allow the command in autocoder.toml [programs]"
	r.Programs = []step.ProgramResult{{Name: "rm -rf /", Status: "refused"}}
	rs = append(rs, r)
	r = res(8, step.StatusFailed)
	r.Class, r.Reason, r.Error, r.Hint = step.ClassPrecondition, step.ReasonPrecondition, "a.txt: expectedSha256 does not match: the file's SHA-256 is 5891b5b5…", "read the file again and retry with its current sha256"
	rs = append(rs, r)
	r = res(9, step.StatusFailed)
	r.Class, r.Reason = step.ClassStepFailed, step.ReasonNotFound
	r.Ops = []step.OpResult{{Kind: step.OpRead, Path: "nope.txt", Status: step.StatusFailed, Error: "nope.txt: no such file or directory", Hint: "check the path"}}
	rs = append(rs, r)
	r = res(10, step.StatusFailed)
	r.Class, r.Reason, r.Error, r.Hint = step.ClassRefused, step.ReasonRefused, "/etc/passwd: outside the repository", "write inside the repository root"
	rs = append(rs, r)
	r = res(11, step.StatusFailed)
	r.Class, r.Reason = step.ClassUsage, step.ReasonInvalid
	r.Ops = []step.OpResult{{Kind: step.OpRead, Path: "a.txt", Status: step.StatusFailed, Error: `invalid line "99": past the end: the file has 2 lines`, Hint: "ask for lines 1 to 2"}}
	rs = append(rs, r)
	r = res(12, step.StatusSkipped)
	r.Ops = []step.OpResult{{Kind: step.OpDelete, Path: "a.txt", Status: step.StatusSkipped, Message: "not attempted: an earlier step failed"}}
	rs = append(rs, r)
	r = res(13, step.StatusFailed)
	r.Class, r.Reason, r.Error = step.ClassInternal, step.ReasonInternal, "write d: disk full"
	rs = append(rs, r)
	rs = append(rs, step.Result{ParseErr: items[14].Err, Status: step.StatusFailed, Class: step.ClassNoBlock})
	rs = append(rs, step.Result{ParseErr: items[15].Err, Status: step.StatusFailed, Class: step.ClassNoBlock})
	// Results of other dialects are not answered here.
	rs = append(rs, step.Result{Step: &step.Step{ID: "step-1", Dialect: "axon"}, StepID: "step-1", Status: step.StatusApplied},
		step.Result{ParseErr: &step.ParseError{Dialect: "autocoder-json", Msg: "x"}, Status: step.StatusFailed})
	return rs
}

func TestFeedbackGolden(t *testing.T) {
	out := Feedback(feedbackResults(t))
	golden.Check(t, "testdata/feedback/all.golden.md", out)

	// Each answer is a block holding one valid JSON-RPC response whose id
	// is its request's, and the answers are exactly as many as the mcp
	// results: the response text must read back with this package's own
	// rules as zero requests.
	if items := Parse(out); len(items) != 0 {
		t.Errorf("feedback reads as %d requests", len(items))
	}
	wantIDs := []string{`"init"`, `"list"`, `"call-read"`, `7`, `"call-batch"`, `"call-dry"`, `"call-run"`, `"call-refused"`,
		`"call-conflict"`, `"call-missing"`, `"call-forbidden"`, `"call-badline"`, `"call-skipped"`, `"call-internal"`, `"call-invalid"`, `null`}
	wantCodes := []string{"", "", "", "", "", "", "", CodePolicyBlocked, CodeConflict, CodeNotFound, CodeForbidden,
		CodeInvalidInput, CodeNotExecuted, CodeInternal, CodeInvalidInput, CodeInvalidInput}
	blocks := strings.Split(strings.TrimSpace(string(out)), "\n\n")
	if len(blocks) != len(wantIDs) {
		t.Fatalf("want %d blocks, got %d", len(wantIDs), len(blocks))
	}
	for i, b := range blocks {
		body, ok := strings.CutPrefix(b, "```mcp-response\n")
		body, ok2 := strings.CutSuffix(body, "\n```")
		if !ok || !ok2 {
			t.Fatalf("block %d is not an mcp-response block:\n%s", i, b)
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   *RPCError       `json:"error"`
		}
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&resp); err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		if resp.JSONRPC != "2.0" || string(resp.ID) != wantIDs[i] || (resp.Result == nil) == (resp.Error == nil) {
			t.Errorf("block %d: %s", i, body)
		}
		if resp.Error != nil && (resp.Error.Data.AppCode != wantCodes[i] || resp.Error.Code != RPCCode(wantCodes[i])) {
			t.Errorf("block %d: app code %s (%d), want %s", i, resp.Error.Data.AppCode, resp.Error.Code, wantCodes[i])
		}
		if resp.Error == nil && wantCodes[i] != "" {
			t.Errorf("block %d: want error %s", i, wantCodes[i])
		}
	}
	if !bytes.Contains(out, []byte(`"text":"WRITE_SUCCESS"`)) || !bytes.Contains(out, []byte(`"text":"WRITE_BATCH_SUCCESS"`)) ||
		!bytes.Contains(out, []byte(`"protocolVersion":"2024-11-05"`)) {
		t.Error("missing the reference's success texts")
	}
}

func TestRPCCodes(t *testing.T) {
	for code, want := range map[string]int{CodeInvalidInput: -32602, CodeForbidden: -32003, CodeNotFound: -32004,
		CodeUnauthorized: -32001, CodePolicyBlocked: -32000, CodeConflict: -32000, CodeNotSupported: -32000, CodeInternal: -32000} {
		if got := RPCCode(code); got != want {
			t.Errorf("%s: %d, want %d", code, got, want)
		}
	}
}
