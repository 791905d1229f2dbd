package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// BenchmarkScale is issue #20's table: every per-command cost of autocoder
// beside what a user would do without it, on generated repositories of
// 1,000, 100,000 and 1,000,000 tracked files, in one run, as medians and
// ratios (autocoder ÷ baseline: below 1, autocoder is faster). Each
// operation, whole processes included:
//
//   - one-step apply: `autocoder apply` of a response of one step (a
//     one-line edit, each round another file), beside writing the file,
//     `git add` and `git commit`;
//   - 50-step apply: `autocoder apply` of a response of 50 such steps (one
//     process), beside the 50-iteration git loop (benchApplyRound);
//   - MCP write: one fs_write through `autocoder mcp` (a commit each),
//     beside @modelcontextprotocol/server-filesystem's write_file (the file
//     only), through the same client, interleaved (benchMCPCalls);
//   - run turn: the time a turn of `autocoder run` takes outside the model
//     (from one request to the next, against the local fake model
//     agenttest, which answers at once; the first turn of a run left out),
//     beside one `autocoder apply` of one step;
//   - 4 parallel sessions: four `autocoder apply --worktree` of 10 steps
//     each at once, beside four `git worktree add` + 10-step git loops +
//     `git worktree remove` at once (a failed `worktree add` tried again, as
//     autocoder does); and one session alone, each way, for
//     "two sessions never wait for each other" (the parallel wall time ÷
//     the one alone: 1 on four idle cores; on C cores, CPU-bound sessions
//     cannot get below 4/C).
//
// Git judges every result: each checkout clean, `fsck --strict` silent,
// autocoder's branches the same trees as the git side's, one commit per
// step (the MCP write: the reference server's files the only changes).
// Run (AUTOCODER_BENCH_SIZES: default 1000,100000; AUTOCODER_BENCH_ROUNDS:
// default 3):
//
//	go test -run '^$' -bench BenchmarkScale -benchtime 1x -timeout 0 ./cmd/autocoder/
//	AUTOCODER_BENCH_SIZES=1000000 AUTOCODER_BENCH_ROUNDS=1 go test -run '^$' -bench BenchmarkScale -benchtime 1x -timeout 0 ./cmd/autocoder/
//	go test -run '^$' -bench 'BenchmarkScale/files=1000$/' -benchtime 1x ./cmd/autocoder/   # one size, every operation
//
// The repositories are gittest.Template's, generated once per size and kept
// in gittest.TemplateDir (os.TempDir()/autocoder-bench-template-v1-N) for
// later runs; each round works on copies (cp -a) that the run removes. The
// 1,000,000-file template takes 4.2 GB and a million inodes, each copy as
// much again (the sessions part holds two copies a round, and four
// worktrees at once, autocoder's and then git's, each a checkout of every
// file: about 25 GB at 1M; check `df -h` and `df -i` first). On the README's 2 cores, loaded
// by other work (load average 6–10), generating it took 10 min 51 s (once:
// later runs reuse it) and one copy over 12 minutes.
// It prints the table at the end, and how long each part took. CI runs no
// benchmark.
func BenchmarkScale(b *testing.B) {
	gittest.Isolate(b)
	sizes := []int{1000, 100000}
	if s := os.Getenv("AUTOCODER_BENCH_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("AUTOCODER_BENCH_SIZES=%q: %v (hint: 1000,100000,1000000)", s, err)
			}
			gittest.LayoutFor(n) // panics on a size with no layout
			sizes = append(sizes, n)
		}
	}
	rounds := 3
	if s := os.Getenv("AUTOCODER_BENCH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("AUTOCODER_BENCH_ROUNDS=%q: want a number ≥ 1", s)
		}
		rounds = n
	}
	ref, why := referenceServer(b)
	var rows []scaleRow
	var took []time.Duration // each row's part's wall time, copies and checks included
	part := func(b *testing.B, name string, f func(b *testing.B) []scaleRow) {
		b.Run(name, func(b *testing.B) {
			start := time.Now()
			got := f(b)
			d := time.Since(start)
			for range got {
				took = append(took, d)
			}
			rows = append(rows, got...)
			fmt.Fprintf(os.Stderr, "%s: %v\n", b.Name(), d.Round(time.Second))
		})
	}
	for _, files := range sizes {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			start := time.Now()
			gittest.Template(b, files)
			fmt.Fprintf(os.Stderr, "%s: template ready in %v\n", b.Name(), time.Since(start).Round(time.Second))
			part(b, "onestep", func(b *testing.B) []scaleRow {
				a, g := benchOneStep(b, files, 4*rounds+1)
				return []scaleRow{{"one-step apply", files, a, "git add + commit", g}}
			})
			part(b, "steps50", func(b *testing.B) []scaleRow {
				var a, g []time.Duration
				for range rounds {
					at, gt := benchApplyRound(b, files, 50)
					a, g = append(a, at), append(g, gt)
				}
				return []scaleRow{{"50-step apply (one process)", files, a, "50 × git add + commit", g}}
			})
			part(b, "mcpwrite", func(b *testing.B) []scaleRow {
				dir := benchRepo(b, files)
				defer benchRemove(dir)
				at, rt, _ := benchMCPCalls(b, dir, files, ref, 20*rounds)
				if ref == "" {
					return []scaleRow{{"MCP write", files, at, "server-filesystem not measured: " + why, nil}}
				}
				return []scaleRow{{"MCP write", files, at, "server-filesystem write_file", rt}}
			})
			part(b, "runturn", func(b *testing.B) []scaleRow {
				var turn, apply []time.Duration
				for range rounds {
					t, a := benchRunTurn(b, files, 6)
					turn, apply = append(turn, t...), append(apply, a...)
				}
				return []scaleRow{{"run turn, outside the model", files, turn, "one-step autocoder apply", apply}}
			})
			part(b, "sessions", func(b *testing.B) []scaleRow {
				var a4, g4, a1, g1 []time.Duration
				for range rounds {
					// One pair of copies a round: at 1M files a copy
					// takes ten minutes. The session alone comes after
					// the four, on a branch of its own.
					mine, theirs := benchRepo(b, files), benchRepo(b, files)
					a, g := benchSessions(b, mine, theirs, files, 0, 4, 10)
					a4, g4 = append(a4, a), append(g4, g)
					a, g = benchSessions(b, mine, theirs, files, 4, 1, 10)
					a1, g1 = append(a1, a), append(g1, g)
					benchRemove(mine, theirs)
				}
				return []scaleRow{
					{"4 parallel sessions × 10 steps", files, a4, "4 × (git worktree add + 10 × add + commit)", g4},
					{"1 session alone × 10 steps", files, a1, "git worktree add + 10 × add + commit", g1},
					{"4 parallel ÷ 1 alone (wall)", files, nil, "", nil},
				}
			})
		})
	}
	fmt.Printf("\n| operation | tracked files | autocoder median | baseline | baseline median | autocoder ÷ baseline | rounds | part took |\n")
	fmt.Printf("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |\n")
	for i, r := range rows {
		if r.ours == nil { // the parallel ÷ alone row: of the two rows before it
			p, a := rows[i-2], rows[i-1]
			fmt.Printf("| %s | %d | %.2f× | git | %.2f× | | | |\n", r.op, r.files,
				float64(median(p.ours))/float64(median(a.ours)), float64(median(p.base))/float64(median(a.base)))
			continue
		}
		row := fmt.Sprintf("| %s | %d | %s | %s |", r.op, r.files, fmtMs(median(r.ours)), r.baseline)
		if r.base != nil {
			row += fmt.Sprintf(" %s | %.2f× |", fmtMs(median(r.base)), float64(median(r.ours))/float64(median(r.base)))
		} else {
			row += " — | — |"
		}
		fmt.Printf("%s %d | %v |\n", row, len(r.ours), took[i].Round(time.Second))
	}
	fmt.Printf("\n%s/%s, %d cores, %s, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		benchGit(b, ".", "version"), time.Now().UTC().Format("2006-01-02 15:04 UTC"))
}

// scaleRow is one row of BenchmarkScale's table: autocoder's times and the
// baseline's, of one operation at one size.
type scaleRow struct {
	op       string
	files    int
	ours     []time.Duration
	baseline string
	base     []time.Duration
}

func median(ds []time.Duration) time.Duration {
	m, _ := medianP90(ds)
	return m
}

// fmtMs prints a duration in milliseconds, with a decimal below 10 ms.
func fmtMs(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", ms(d))
	}
	return fmt.Sprintf("%.0f ms", ms(d))
}

// benchOneStep applies calls one-step responses, one process each, each
// editing another file, on a copy of the repository, and makes the same
// edits with git add + git commit on another copy, interleaved. The first
// call of each side (it makes the work branch; the caches are cold) is not
// counted.
func benchOneStep(b *testing.B, files, calls int) (ours, git []time.Duration) {
	mine, theirs := benchRepo(b, files), benchRepo(b, files)
	defer benchRemove(mine, theirs)
	for i, e := range benchEdits(files, 0, calls) {
		resp := benchResponseFile(b, []benchEdit{e}, i+1)
		start := time.Now()
		benchAutocoder(b, mine, nil, "apply", "--quiet", resp)
		a := time.Since(start)
		start = time.Now()
		benchGitStep(b, theirs, e, i+1)
		g := time.Since(start)
		if i > 0 {
			ours, git = append(ours, a), append(git, g)
		}
	}
	benchJudge(b, mine, "HEAD", theirs, "HEAD", calls)
	return ours, git
}

// benchRunTurn times what each turn of `autocoder run` costs outside the
// model: on one copy of the repository, a run whose model (agenttest, a
// local server that answers at once) answers turns one-step answers, then
// a finish; a turn is the time from one request of autocoder's to the next
// (the model's own time is nil), the first (which reads the index cold) left
// out. On another copy the same steps, each one `autocoder apply`: the
// baseline, each timed.
func benchRunTurn(b *testing.B, files, turns int) (turn, apply []time.Duration) {
	mine, theirs := benchRepo(b, files), benchRepo(b, files)
	defer benchRemove(mine, theirs)
	edits := benchEdits(files, 0, turns)
	var answers []string
	for i, e := range edits {
		answers = append(answers, benchResponse([]benchEdit{e}, i+1))
	}
	turn = benchRunTurns(b, mine, answers)[1:]
	for i, e := range edits {
		resp := benchResponseFile(b, []benchEdit{e}, i+1)
		start := time.Now()
		benchAutocoder(b, theirs, nil, "apply", "--quiet", resp)
		apply = append(apply, time.Since(start))
	}
	if n := benchGit(b, mine, "rev-list", "--count", "main..autocoder/main"); n != fmt.Sprint(turns) {
		b.Fatalf("autocoder run made %s commits, want %d", n, turns)
	}
	benchJudge(b, theirs, "HEAD", mine, "autocoder/main", turns)
	return turn, apply
}

// benchSessions starts sessions sessions at once on mine, a copy of the
// repository, each `autocoder apply --worktree --branch sN` of a response of
// steps steps (each session its own files; N counts from first+1), and on
// theirs, another copy, as many `git worktree add` + steps × (write, add,
// commit) + `git worktree remove` at once; it returns the wall time until
// the last session of each side ended. Git judges each session's branch
// against the git side's and the user's checkout: still on main, clean, no
// worktree left.
func benchSessions(b *testing.B, mine, theirs string, files, first, sessions, steps int) (ours, git time.Duration) {
	var resps []string
	var edits [][]benchEdit
	for s := range sessions {
		e := benchEdits(files, (first+s)*steps, steps)
		edits = append(edits, e)
		resps = append(resps, benchResponseFile(b, e, 1))
	}
	parallel := func(f func(s int)) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		for s := range sessions {
			wg.Go(func() { f(s) })
		}
		wg.Wait()
		return time.Since(start)
	}
	// b.Fatal must not be called from another goroutine: each session
	// reports its failure and the benchmark fails after the wait.
	fails := make([]string, sessions)
	ours = parallel(func(s int) {
		cmd := exec.Command("autocoder", "apply", "--worktree", "--branch", fmt.Sprintf("s%d", first+s+1), "--quiet", resps[s])
		cmd.Dir = mine
		if out, err := cmd.CombinedOutput(); err != nil {
			fails[s] = fmt.Sprintf("autocoder apply --worktree, session %d: %v\n%s", first+s+1, err, out)
		}
	})
	git = parallel(func(s int) {
		wt := filepath.Join(theirs, ".git", fmt.Sprintf("wt-s%d", first+s+1))
		run := func(args ...string) bool {
			cmd := exec.Command("git", args...)
			cmd.Dir = wt
			if args[0] == "worktree" {
				cmd.Dir = theirs
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				fails[s] = fmt.Sprintf("git %v, session %d: %v\n%s", args, first+s+1, err, out)
				return false
			}
			return true
		}
		// git worktree add fails now and then when another is being
		// added at the same moment ("failed to read
		// .git/worktrees/…/commondir"): a script tries again, as
		// autocoder does (gitops.AddSession). The failed one may have
		// made the branch already: the next try takes it (-B; it is
		// still at main).
		create := "-b"
		for try := 1; !run("worktree", "add", "-q", create, fmt.Sprintf("s%d", first+s+1), wt, "main"); try++ {
			if _, err := os.Lstat(wt); err == nil || try == 5 {
				return
			}
			fails[s] = ""
			create = "-B"
			time.Sleep(time.Duration(try) * 20 * time.Millisecond)
		}
		for i, e := range edits[s] {
			p := filepath.Join(wt, e.path)
			data, err := os.ReadFile(p)
			if err == nil {
				err = os.WriteFile(p, []byte(strings.Replace(string(data), e.old, e.new, 1)), 0o666)
			}
			if err != nil {
				fails[s] = err.Error()
				return
			}
			if !run("add", "--", e.path) || !run("commit", "-q", "-m", fmt.Sprintf("Edit %s\n\nstep %d", e.path, i+1)) {
				return
			}
		}
		run("worktree", "remove", wt)
	})
	for _, f := range fails {
		if f != "" {
			b.Fatal(f)
		}
	}
	for s := range sessions {
		benchJudge(b, mine, fmt.Sprintf("autocoder/s%d", first+s+1), theirs, fmt.Sprintf("s%d", first+s+1), steps)
	}
	if h := benchGit(b, mine, "symbolic-ref", "HEAD"); h != "refs/heads/main" {
		b.Fatalf("the user's checkout moved to %s", h)
	}
	for _, dir := range []string{mine, theirs} {
		if l := benchGit(b, dir, "worktree", "list", "--porcelain"); strings.Count(l, "worktree ") != 1 {
			b.Fatalf("%s: worktrees left:\n%s", dir, l)
		}
	}
	return ours, git
}
