package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// versionLine is what `autocoder --version` prints: the version and the
// commit the binary was built from, both from the build information the Go
// toolchain records (`go install …@v1.2.3` records the tag, a build in a
// checkout the commit and whether the tree had changes).
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok)
}

func versionOf(bi *debug.BuildInfo, ok bool) string {
	v := version // a build without module information (go run of a file)
	var rev, when string
	modified := false
	if ok && bi != nil {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				when = s.Value
			}
		}
	}
	var parts []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "commit "+rev)
		if modified {
			parts = append(parts, "with uncommitted changes")
		}
		if when != "" {
			parts = append(parts, when)
		}
	} else {
		parts = append(parts, "no commit recorded")
	}
	parts = append(parts, runtime.Version())
	return fmt.Sprintf("autocoder %s (%s)", v, strings.Join(parts, ", "))
}

func init() {
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, versionLine()) }
}
