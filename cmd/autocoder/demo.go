package main

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/urfave/cli/v2"
)

//go:embed demo/*.md
var demoFiles embed.FS

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run autocoder on bundled example responses in a throwaway repository",
		CustomHelpTemplate: examples(
			"autocoder demo                    # in a new temporary folder",
			"autocoder demo --dir /tmp/try-it  # in a new or empty folder",
		),
		Flags: []cli.Flag{&cli.StringFlag{Name: "dir", Usage: "make the repository in `DIR` (default: a new temporary folder)"}},
		Action: func(c *cli.Context) error {
			out := c.App.Writer
			dir := c.String("dir")
			if dir != "" {
				// The demo makes a repository and commits into it: never
				// in a folder that holds anything, least of all a repository.
				if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
					return &usageError{msg: "demo: " + dir + " is not empty; the demo makes its repository in an empty or new folder",
						try: "Try: autocoder demo --dir " + filepath.Join(dir, "autocoder-demo") + " (or no --dir: a new temporary folder)"}
				}
			}
			if dir == "" {
				var err error
				if dir, err = os.MkdirTemp("", "autocoder-demo-"); err != nil {
					return err
				}
			}
			if err := demoRepo(c.Context, dir); err != nil {
				return err
			}
			fmt.Fprintf(out, "A throwaway repository: %s\n", dir)
			// Each response goes to apply on its standard input, so the demo
			// writes no file of its own, in the repository or elsewhere.
			step := func(stdin string, args ...string) int {
				fmt.Fprintf(out, "\n$ autocoder %s\n", strings.Join(args, " "))
				return run(append([]string{"autocoder", "-C", dir}, args...), strings.NewReader(stdin), out, out)
			}
			entries, _ := demoFiles.ReadDir("demo")
			for _, en := range entries {
				name := en.Name()
				b, _ := demoFiles.ReadFile("demo/" + name)
				fmt.Fprintf(out, "\n--- the model's response %s ---\n%s", name, b)
				step(string(b), "apply", "-")
			}
			step("", "log")
			step("", "undo")
			step("", "redo")
			fmt.Fprintf(out, "\nLook around: cd %s && git log --stat\n", dir)
			return nil
		},
	}
}

// demoRepo makes an empty repository with an identity, so the demo needs
// no set-up.
func demoRepo(ctx context.Context, dir string) error {
	git := func(args ...string) error {
		_, err := gitops.Git(ctx, dir, args...)
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	if err := git("init", "-q", "-b", "main"); err != nil {
		return fmt.Errorf("demo: git init in %s: %w", dir, err)
	}
	if git("var", "GIT_AUTHOR_IDENT") != nil || git("var", "GIT_COMMITTER_IDENT") != nil {
		git("config", "user.name", "autocoder demo")
		git("config", "user.email", "demo@autocoder.invalid")
	}
	return nil
}
