package txn_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// BenchmarkSessionNewFile is one session call that creates a file (the
// engine asks git whether it is ignored), as the MCP server makes it:
// Acquire, Apply, Release.
//
//	go test -run '^$' -bench BenchmarkSessionNewFile -benchtime 200x ./txn/
func BenchmarkSessionNewFile(b *testing.B) {
	gittest.Isolate(b)
	g := gittest.NewWithCommit(b, map[string]string{"a.txt": "a\n", ".gitignore": "*.log\n", "d/.gitignore": "*.tmp\n"})
	repo := g.Dir
	e := openB(b, repo)
	ctx := context.Background()
	if err := e.Release(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := e.Acquire(ctx, time.Second); err != nil {
			b.Fatal(err)
		}
		r := e.Apply(ctx, mkStep(fmt.Sprint("s", i), write(fmt.Sprintf("d/new%d.txt", i), "x\n")))
		if err := e.Release(); err != nil || r.Error != "" {
			b.Fatal(r.Error, err)
		}
	}
	b.StopTimer()
	e.Close()
}

func openB(b *testing.B, dir string) *txn.Engine {
	b.Helper()
	repo, err := gitops.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	e, err := txn.Open(context.Background(), repo, txn.Options{SplitIndex: true})
	if err != nil {
		b.Fatal(err)
	}
	return e
}
