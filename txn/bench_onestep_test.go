package txn_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// BenchmarkOneStepApply is what one `autocoder apply` of one step costs
// inside the process at 100k tracked files (issue #20): open the repository
// and the engine, apply and commit one step, close; each iteration the next
// step of benchSteps on the same repository, as a user running apply after
// apply. The index is whole (core.splitIndex=false), or split by git
// (core.splitIndex=true), as autocoder writes one this large by default. It prints
// the medians of the open, the step and the whole:
//
//	go test -run '^$' -bench BenchmarkOneStepApply -benchtime 15x ./txn/
func BenchmarkOneStepApply(b *testing.B) {
	gittest.Isolate(b)
	l := layoutFor(100000)
	template := benchTemplate(b, l)
	for _, split := range []bool{false, true} {
		b.Run(fmt.Sprintf("files=100000/split=%v", split), func(b *testing.B) {
			dir, err := os.MkdirTemp(filepath.Dir(template), "onestep-")
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(dir)
			dir = filepath.Join(dir, "repo")
			benchCopy(b, template, dir)
			// Whole: core.splitIndex=false, or autocoder splits an index
			// this large by itself (gitops.SplitFrom).
			if err := runGit(dir, nil, "config", "core.splitIndex", fmt.Sprint(split)); err != nil {
				b.Fatal(err)
			}
			if split {
				if err := runGit(dir, nil, "update-index", "--split-index"); err != nil {
					b.Fatal(err)
				}
			}
			steps := benchSteps(l, b.N)
			var open, apply, whole []time.Duration
			settle()
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				repo, err := gitops.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				e, err := txn.Open(context.Background(), repo, txn.Options{})
				if err != nil {
					b.Fatal(err)
				}
				opened := time.Now()
				r := e.Apply(context.Background(), steps[i].txnStep())
				if r.Status != step.StatusApplied {
					b.Fatalf("step %s: status %s: %s (hint: %s)", steps[i].ID, r.Status, r.Error, r.Hint)
				}
				applied := time.Now()
				if err := e.Close(); err != nil {
					b.Fatal(err)
				}
				end := time.Now()
				open, apply, whole = append(open, opened.Sub(start)), append(apply, applied.Sub(opened)), append(whole, end.Sub(start))
			}
			b.StopTimer()
			b.ReportMetric(ms(median(open)), "ms-open-median")
			b.ReportMetric(ms(median(apply)), "ms-step-median")
			b.ReportMetric(ms(median(whole)), "ms-whole-median")
			if err := runGit(dir, nil, "fsck", "--strict", "--no-progress"); err != nil {
				b.Fatal(err)
			}
		})
	}
}
