// Command testtimes reads `go test -json` on its standard input, writes what
// plain `go test` would write (each package's ok or FAIL line, the output
// of failed tests, build errors) and ends with a table of each package's
// time, slowest first, the slowest tests and the suite's wall clock (the
// packages run side by side): CI shows where the suite's time goes, so
// that a package creeping towards go test's timeout is seen before it
// reaches it; the inner loop's figures are one command away too.
//
//	go test -json ./... | go run ./.ci/testtimes
//	go test -short -json ./... | go run ./.ci/testtimes
//
// It exits 1 when the stream held no package result (a table that is
// empty means the report broke, not that the suite is fast), and 0
// otherwise: whether the tests passed is go test's exit status to say
// (set -o pipefail).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Elapsed    float64
	Output     string
	Time       time.Time // absent from build output
}

type timing struct {
	name    string
	elapsed float64
	action  string
}

// slowestTests is how many tests the second table lists.
const slowestTests = 10

func main() {
	if err := report(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
}

// report copies the stream to w as go test would print it and appends the
// tables; it fails when no package finished.
func report(r io.Reader, w io.Writer) error {
	var pkgs, tests []timing
	var first, last time.Time             // the span of the events that carry a time
	held := map[string]*strings.Builder{} // a running test's output, shown if it fails
	flushHeld := func(pkg string) {
		keys := make([]string, 0, len(held))
		for k := range held {
			if strings.HasPrefix(k, pkg+" ") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			io.WriteString(w, held[k].String())
			delete(held, k)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not an event: go's own messages
			continue
		}
		if !e.Time.IsZero() {
			if first.IsZero() || e.Time.Before(first) {
				first = e.Time
			}
			if e.Time.After(last) {
				last = e.Time
			}
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			io.WriteString(w, e.Output)
		case e.Test != "" && e.Action == "output":
			b := held[key]
			if b == nil {
				b = &strings.Builder{}
				held[key] = b
			}
			b.WriteString(e.Output)
		case e.Test != "" && e.Action == "fail":
			if b := held[key]; b != nil {
				io.WriteString(w, b.String())
			}
			delete(held, key)
			tests = append(tests, timing{e.Package + " " + e.Test, e.Elapsed, e.Action})
		case e.Test != "" && (e.Action == "pass" || e.Action == "skip"):
			delete(held, key)
			if !strings.Contains(e.Test, "/") {
				tests = append(tests, timing{e.Package + " " + e.Test, e.Elapsed, e.Action})
			}
		case e.Test == "" && e.Action == "output":
			// What go test prints for the package as a whole: its ok or
			// FAIL line, a panic outside any test; not -v's bare PASS.
			if e.Output != "PASS\n" {
				io.WriteString(w, e.Output)
			}
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail"):
			if e.Action == "fail" {
				flushHeld(e.Package) // a timeout or a crash: the tests it cut short
			}
			pkgs = append(pkgs, timing{e.Package, e.Elapsed, e.Action})
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("the go test -json stream held no package result: the timing table is empty")
	}
	table(w, "package times (go test -json elapsed, slowest first)", pkgs, len(pkgs))
	table(w, "slowest tests", tests, slowestTests)
	if !first.IsZero() {
		// The packages run side by side (go test -p): the suite's wall
		// clock is this span, not the sum above; the build before the
		// first test binary starts comes on top.
		fmt.Fprintf(w, "%9.2fs  wall clock from the first test binary's start to the last result\n", last.Sub(first).Seconds())
	}
	return nil
}

func table(w io.Writer, title string, rows []timing, n int) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].elapsed > rows[j].elapsed })
	fmt.Fprintf(w, "--- %s\n", title)
	var total float64
	for _, r := range rows {
		total += r.elapsed
	}
	for _, r := range rows[:min(n, len(rows))] {
		mark := ""
		if r.action == "fail" {
			mark = "  FAIL"
		}
		fmt.Fprintf(w, "%9.2fs  %s%s\n", r.elapsed, r.name, mark)
	}
	fmt.Fprintf(w, "%9.2fs  total of %d\n", total, len(rows))
}
