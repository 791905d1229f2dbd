package txn_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
)

// This file gives what BenchmarkApply (bench_test.go) measures on: large
// repositories generated with git fast-import (gittest.Template), and one
// fixed list of steps that both the engine and the git loop apply.

// benchLayout is the shape of a generated repository (gittest.Layout).
type benchLayout = gittest.Layout

func layoutFor(files int) benchLayout { return gittest.LayoutFor(files) }

// benchOp is one change of a benchmark step, in a form both sides can apply:
// a replace of Old by New in Path, or (Create) a new file with Content.
type benchOp struct {
	Path     string
	Old, New string
	Create   bool
	Content  []byte
}

// benchStep is one step as both sides apply it.
type benchStep struct {
	ID      string
	Message string
	Ops     []benchOp
}

// txnStep is the step as a dialect reader would hand it to the engine.
func (s benchStep) txnStep() *step.Step {
	st := &step.Step{ID: s.ID, Reason: s.Message, Dialect: "axon"}
	for _, op := range s.Ops {
		if op.Create {
			st.Ops = append(st.Ops, step.Op{Kind: step.OpWrite, Path: op.Path, Content: op.Content})
		} else {
			st.Ops = append(st.Ops, step.Op{Kind: step.OpReplace, Path: op.Path, Edits: []step.Edit{{Old: op.Old, New: op.New}}})
		}
	}
	return st
}

// benchSteps makes n steps from a fixed seed: each modifies 1–3 existing
// files in different folders with a one-line replace, and one step in four
// also creates a new file. A file edited twice gets the edit that follows
// the first, so every step applies to what the steps before it left.
func benchSteps(l benchLayout, n int) []benchStep {
	rng := rand.New(rand.NewPCG(2026, 9))
	version := map[int]int{}
	steps := make([]benchStep, n)
	for i := range steps {
		s := benchStep{ID: fmt.Sprintf("bench-%03d", i+1)}
		used := map[int]bool{}
		pickDir := func() int {
			for {
				if d := rng.IntN(l.Dirs()); !used[d] {
					used[d] = true
					return d
				}
			}
		}
		k := 1 + rng.IntN(3)
		var touched []string
		for range k {
			d := pickDir()
			f := d*l.PerDir + rng.IntN(l.PerDir)
			v := version[f]
			version[f] = v + 1
			s.Ops = append(s.Ops, benchOp{Path: l.Path(f), Old: gittest.VersionLine(f, v), New: gittest.VersionLine(f, v+1)})
			touched = append(touched, l.Path(f))
		}
		if rng.IntN(4) == 0 {
			p := fmt.Sprintf("%s/step%03d.go", l.Dir(pickDir()), i+1)
			s.Ops = append(s.Ops, benchOp{Path: p, Create: true,
				Content: fmt.Appendf(nil, "package generated\n\n// Step%03d was added by benchmark step %d.\nconst Step%03d = %d\n", i+1, i+1, i+1, rng.IntN(1000))})
			touched = append(touched, p)
		}
		s.Message = fmt.Sprintf("bench: step %d bumps %s", i+1, strings.Join(touched, ", "))
		steps[i] = s
	}
	return steps
}

// benchTemplate returns the generated repository for a size, built once
// and kept between runs (gittest.Template). It must never be applied to:
// benchCopy makes working copies.
func benchTemplate(b *testing.B, l benchLayout) string {
	return gittest.Template(b, l.Files())
}

// benchCopy makes a working copy of a template for one side of one round,
// clean and with its index settled (gittest.CopyTemplate).
func benchCopy(b *testing.B, template, dst string) {
	gittest.CopyTemplate(b, template, dst)
}

// runGit runs git in dir; stdout goes to out when it is not nil.
func runGit(dir string, out *bytes.Buffer, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out != nil { // a nil *bytes.Buffer in an io.Writer is not a nil Writer
		cmd.Stdout = out
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
