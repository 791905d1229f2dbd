package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPWrite measures one write tool call through the Go SDK's
// client, as an MCP client makes it, on repositories of 1,000 and 100,000
// tracked files (gittest.Template): `autocoder mcp` (fs_write: a commit each) beside the
// reference filesystem server @modelcontextprotocol/server-filesystem
// (write_file: the file only), in the same run, on the same repository,
// calls interleaved, each after a pause (benchPause); then autocoder's
// calls again, back to back. The reference server is installed with npm into a
// temporary folder; without npm, autocoder is measured alone, and the
// output says so. Run:
//
//	go test -run '^$' -bench BenchmarkMCPWrite -benchtime 1x ./cmd/autocoder/
//	go test -run '^$' -bench 'BenchmarkMCPWrite/files=1000$' -benchtime 1x ./cmd/autocoder/
//
// It prints medians, p90 and the ratio. CI runs no benchmark.
func BenchmarkMCPWrite(b *testing.B) {
	ref, why := referenceServer(b)
	if ref == "" {
		fmt.Printf("reference server not measured (%s): autocoder alone\n", why)
	}
	fmt.Printf("| tracked files | calls | autocoder median | p90 | reference median | p90 | autocoder ÷ reference | autocoder back to back median | p90 |\n")
	fmt.Printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, files := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			benchMCPWrite(b, files, ref)
		})
	}
}

func benchMCPWrite(b *testing.B, files int, ref string) {
	gittest.Isolate(b)
	const calls = 60
	at, rt, bt := benchMCPCalls(b, benchRepo(b, files), files, ref, calls)
	am, ap := medianP90(at)
	row := fmt.Sprintf("| %d | %d | %.1f ms | %.1f ms |", files, calls, ms(am), ms(ap))
	if ref != "" {
		rm, rp := medianP90(rt)
		row += fmt.Sprintf(" %.1f ms | %.1f ms | %.1f× |", ms(rm), ms(rp), float64(am)/float64(rm))
	} else {
		row += " — | — | — |"
	}
	bm, bp := medianP90(bt)
	row += fmt.Sprintf(" %.1f ms | %.1f ms |", ms(bm), ms(bp))
	fmt.Println(row)
	b.ReportMetric(ms(am), "ms/write")
}

// benchMCPCalls makes calls write calls on the repository dir of files
// files, through `autocoder mcp` (at) and, when ref is not "", the reference
// server (rt) interleaved, each after benchPause; then calls through
// autocoder back to back (bt). Three more calls of each kind come first,
// unmeasured. Git judges the result: `fsck --strict` silent, one commit
// per fs_write on the work branch, and the checkout changed only where the
// reference server wrote (it commits nothing).
func benchMCPCalls(b *testing.B, dir string, files int, ref string, calls int) (at, rt, bt []time.Duration) {
	l := gittest.LayoutFor(files)
	ctx := context.Background()
	connect := func(cmd *exec.Cmd) *sdk.ClientSession {
		cmd.Dir = dir
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	ac := connect(exec.Command("autocoder", "mcp"))
	var rs *sdk.ClientSession
	if ref != "" {
		rs = connect(exec.Command("node", ref, dir))
	}
	write := func(cs *sdk.ClientSession, tool string, args map[string]any) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", tool, err, res)
		}
		return d
	}
	theirs := map[string]bool{}
	for i := range calls + 3 {
		// Each call overwrites another tracked file, in another folder,
		// after a pause in which the other server is idle too.
		path := l.Path((i * 7919) % files)
		content := fmt.Sprintf("package p\n\n// version %d\n", i)
		time.Sleep(benchPause)
		d := write(ac, "fs_write", map[string]any{"path": path, "mode": "overwrite", "content": content})
		if i >= 3 { // the first calls open the repository and warm the caches
			at = append(at, d)
		}
		if rs != nil {
			path = l.Path((i*7919 + files/2) % files)
			theirs[path] = true
			time.Sleep(benchPause)
			d = write(rs, "write_file", map[string]any{"path": filepath.Join(dir, path), "content": content})
			if i >= 3 {
				rt = append(rt, d)
			}
		}
	}
	// Back to back: each call sent as soon as the last one answered.
	for i := range calls + 3 {
		path := l.Path((i*7919 + files/4) % files)
		d := write(ac, "fs_write", map[string]any{"path": path, "mode": "overwrite", "content": fmt.Sprintf("package p\n\n// again %d\n", i)})
		if i >= 3 {
			bt = append(bt, d)
		}
	}
	ac.Close()
	if rs != nil {
		rs.Close()
	}
	benchGit(b, dir, "fsck", "--strict", "--no-progress")
	if n := benchGit(b, dir, "rev-list", "--count", "main..HEAD"); n != fmt.Sprint(2*(calls+3)) {
		b.Fatalf("autocoder mcp made %s commits, want one per fs_write, %d", n, 2*(calls+3))
	}
	var changed []string
	for _, line := range strings.Split(benchGit(b, dir, "status", "--porcelain"), "\n") {
		if line != "" {
			changed = append(changed, line)
		}
	}
	if len(changed) != len(theirs) {
		b.Fatalf("git status lists %d changes, want the %d files the reference server wrote:\n%s", len(changed), len(theirs), strings.Join(changed, "\n"))
	}
	for _, line := range changed {
		// " M PATH": changed in the checkout, not in the index (benchGit
		// trimmed the first line's leading space).
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "M "); !ok || !theirs[path] {
			b.Fatalf("git status: %q is no file the reference server wrote", line)
		}
	}
	return at, rt, bt
}

// benchPause is the pause before each call: an MCP client's calls come
// with the model's turn between them (seconds, in practice), and a session
// does work of its own there (the spare files of gitops/spare.go). Both
// servers get the same pause, so that neither is measured while the other
// is busy; the back-to-back columns show autocoder without it.
const benchPause = 50 * time.Millisecond

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func medianP90(ds []time.Duration) (time.Duration, time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*9/10]
}

// benchRepo makes a working copy of the generated repository of files
// tracked files (gittest.Template: about 400 bytes each, in folders of
// 40–500, committed; its index has a TREE extension, as after a `git
// commit`), in a temporary folder of its own.
func benchRepo(b *testing.B, files int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "repo")
	if real, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		dir = filepath.Join(real, "repo")
	}
	gittest.CopyTemplate(b, gittest.Template(b, files), dir)
	return dir
}

// benchRemove removes copies benchRepo made as soon as a round is done with
// them, rather than when the benchmark ends: at a million files each is
// gigabytes.
func benchRemove(dirs ...string) {
	for _, dir := range dirs {
		os.RemoveAll(filepath.Dir(dir))
	}
}

// referenceServer returns the path of the reference server's entry point,
// installing it with npm into a temporary folder kept between runs, or ""
// and why not.
func referenceServer(b *testing.B) (string, string) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not installed"
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "npm is not installed"
	}
	prefix := filepath.Join(os.TempDir(), "autocoder-bench-server-filesystem")
	entry := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(entry); err == nil {
		return entry, ""
	}
	fmt.Printf("installing @modelcontextprotocol/server-filesystem with npm into %s\n", prefix)
	cmd := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--silent", "@modelcontextprotocol/server-filesystem")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("npm install failed: %v: %s", err, out)
	}
	if _, err := os.Stat(entry); err != nil {
		return "", "npm installed no " + entry
	}
	return entry, ""
}
