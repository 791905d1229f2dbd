package main

import (
	"strings"
	"testing"
)

// A canned stream: two packages that pass (one with a quiet test), one with
// a failing test, one cut short by a timeout, one without tests, a build
// error and a line that is not an event.
const stream = `{"Time":"2026-01-02T10:00:01.5Z","Action":"start","Package":"ex/fast"}
{"Action":"run","Package":"ex/fast","Test":"TestQuiet"}
{"Action":"output","Package":"ex/fast","Test":"TestQuiet","Output":"=== RUN   TestQuiet\n"}
{"Action":"output","Package":"ex/fast","Test":"TestQuiet","Output":"--- PASS: TestQuiet (0.01s)\n"}
{"Action":"pass","Package":"ex/fast","Test":"TestQuiet","Elapsed":0.01}
{"Action":"output","Package":"ex/fast","Output":"PASS\n"}
{"Action":"output","Package":"ex/fast","Output":"ok  \tex/fast\t0.02s\n"}
{"Time":"2026-01-02T10:00:01.52Z","Action":"pass","Package":"ex/fast","Elapsed":0.02}
{"Action":"run","Package":"ex/slow","Test":"TestBig"}
{"Action":"output","Package":"ex/slow","Test":"TestBig","Output":"=== RUN   TestBig\n"}
{"Action":"run","Package":"ex/slow","Test":"TestBig/sub"}
{"Action":"pass","Package":"ex/slow","Test":"TestBig/sub","Elapsed":40}
{"Action":"pass","Package":"ex/slow","Test":"TestBig","Elapsed":41.5}
{"Action":"output","Package":"ex/slow","Output":"ok  \tex/slow\t42.00s\n"}
{"Action":"pass","Package":"ex/slow","Elapsed":42}
{"Action":"run","Package":"ex/bad","Test":"TestBroken"}
{"Action":"output","Package":"ex/bad","Test":"TestBroken","Output":"=== RUN   TestBroken\n"}
{"Action":"output","Package":"ex/bad","Test":"TestBroken","Output":"    bad_test.go:9: want 2, got 3\n"}
{"Action":"output","Package":"ex/bad","Test":"TestBroken","Output":"--- FAIL: TestBroken (0.50s)\n"}
{"Action":"fail","Package":"ex/bad","Test":"TestBroken","Elapsed":0.5}
{"Action":"output","Package":"ex/bad","Output":"FAIL\n"}
{"Action":"output","Package":"ex/bad","Output":"FAIL\tex/bad\t0.60s\n"}
{"Action":"fail","Package":"ex/bad","Elapsed":0.6}
{"Action":"run","Package":"ex/hang","Test":"TestForever"}
{"Action":"output","Package":"ex/hang","Test":"TestForever","Output":"=== RUN   TestForever\n"}
{"Action":"output","Package":"ex/hang","Test":"TestForever","Output":"panic: test timed out after 10m0s\n"}
{"Action":"output","Package":"ex/hang","Output":"FAIL\tex/hang\t600.01s\n"}
{"Time":"2026-01-02T10:10:02Z","Action":"fail","Package":"ex/hang","Elapsed":600.01}
{"Action":"output","Package":"ex/none","Output":"?   \tex/none\t[no test files]\n"}
{"Action":"skip","Package":"ex/none","Elapsed":0}
{"ImportPath":"ex/broken","Action":"build-output","Output":"ex/broken/x.go:3:1: syntax error\n"}
{"ImportPath":"ex/broken","Action":"build-fail"}
go: downloading example.com/x v1.0.0
`

func TestReport(t *testing.T) {
	var out strings.Builder
	if err := report(strings.NewReader(stream), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"ok  \tex/fast\t0.02s\n",
		"ok  \tex/slow\t42.00s\n",
		// A failed test's output is shown, as go test shows it.
		"=== RUN   TestBroken\n    bad_test.go:9: want 2, got 3\n--- FAIL: TestBroken (0.50s)\n",
		"FAIL\tex/bad\t0.60s\n",
		// A test a timeout cut short: what it printed is shown.
		"panic: test timed out after 10m0s\n",
		"?   \tex/none\t[no test files]\n",
		"ex/broken/x.go:3:1: syntax error\n",
		"go: downloading example.com/x v1.0.0\n",
		// The tables: every package that ran, slowest first, then the
		// slowest top-level tests.
		"--- package times (go test -json elapsed, slowest first)\n" +
			"   600.01s  ex/hang  FAIL\n" +
			"    42.00s  ex/slow\n" +
			"     0.60s  ex/bad  FAIL\n" +
			"     0.02s  ex/fast\n" +
			"   642.63s  total of 4\n",
		"--- slowest tests\n" +
			"    41.50s  ex/slow TestBig\n" +
			"     0.50s  ex/bad TestBroken  FAIL\n" +
			"     0.01s  ex/fast TestQuiet\n",
		// The wall clock: from the first event to the last, not the sum.
		"   600.50s  wall clock from the first test binary's start to the last result\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks\n%s\nit is:\n%s", want, got)
		}
	}
	// A passing test's output and -v's bare PASS stay hidden, as without -json.
	for _, not := range []string{"=== RUN   TestQuiet", "--- PASS", "\nPASS\n", "TestBig/sub"} {
		if strings.Contains(got, not) {
			t.Errorf("the report shows %q:\n%s", not, got)
		}
	}
}

// A stream with no package result (go test never ran, or its output went
// elsewhere) is an error: an empty table must not pass for a fast suite.
func TestReportWithoutPackagesFails(t *testing.T) {
	for _, s := range []string{"", "go: cannot find main module\n", `{"Action":"start","Package":"ex/a"}` + "\n"} {
		var out strings.Builder
		if err := report(strings.NewReader(s), &out); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("report(%q) = %v, want an error saying the table is empty", s, err)
		}
	}
}
