package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPWrite measures one write tool call through the Go SDK's
// client, as an MCP client makes it, on repositories of 1,000 and 100,000
// tracked files: `autocoder mcp` (fs_write: a commit each) beside the
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
	dir := benchMCPRepo(b, files)
	calls := 60
	ctx := context.Background()
	connect := func(cmd *exec.Cmd) *sdk.ClientSession {
		cmd.Dir = dir
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
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
	var at, rt, bt []time.Duration
	b.ResetTimer()
	for i := range calls + 3 {
		// Each call overwrites another tracked file, in another folder,
		// after a pause in which the other server is idle too.
		path := benchMCPPath(files, (i*7919)%files)
		content := fmt.Sprintf("package p\n\n// version %d\n", i)
		time.Sleep(benchPause)
		d := write(ac, "fs_write", map[string]any{"path": path, "mode": "overwrite", "content": content})
		if i >= 3 { // the first calls open the repository and warm the caches
			at = append(at, d)
		}
		if rs != nil {
			path = benchMCPPath(files, (i*7919+files/2)%files)
			time.Sleep(benchPause)
			d = write(rs, "write_file", map[string]any{"path": filepath.Join(dir, path), "content": content})
			if i >= 3 {
				rt = append(rt, d)
			}
		}
	}
	// Back to back: each call sent as soon as the last one answered.
	for i := range calls + 3 {
		path := benchMCPPath(files, (i*7919+files/4)%files)
		d := write(ac, "fs_write", map[string]any{"path": path, "mode": "overwrite", "content": fmt.Sprintf("package p\n\n// again %d\n", i)})
		if i >= 3 {
			bt = append(bt, d)
		}
	}
	b.StopTimer()
	am, ap := medianP90(at)
	row := fmt.Sprintf("| %d | %d | %.1f ms | %.1f ms |", files, calls, ms(am), ms(ap))
	if rs != nil {
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

func benchMCPPath(files, n int) string {
	perDir := 100
	return fmt.Sprintf("src/d%03d/f%03d.go", n/perDir, n%perDir)
}

// benchMCPRepo makes a repository with files tracked files of about 100
// bytes each, 100 per folder, committed; its index has a TREE extension, as
// after a `git commit`.
func benchMCPRepo(b *testing.B, files int) string {
	b.Helper()
	dir := b.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for n := range files {
		p := filepath.Join(dir, benchMCPPath(files, n))
		if n%100 == 0 {
			os.MkdirAll(filepath.Dir(p), 0o777)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package p\n\n// file %d of the benchmark repository, unique content\n", n), 0o666); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "gc.auto=0", "commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
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
