package main

import (
	"fmt"
	"io"
	"os"
	"time"

	lib "github.com/autocoder/autocoder"

	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/config"
)

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "autocoder",
		Usage:     "apply a language model's instruction blocks to a git repository, one commit per step",
		Version:   versionLine(), // --version (see version.go)
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		// urfave/cli calls os.Exit itself for its exit errors and misses
		// wrapped ones; we map every error in report instead.
		ExitErrHandler: func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "C", Usage: "run as if started in `DIR`"},
		},
		Commands: []*cli.Command{
			applyCommand(),
			undoCommand(),
			redoCommand(),
			logCommand(),
			parseCommand(),
			promptCommand(),
			runCommand(),
			showCommand(),
			sessionsCommand(),
			trustCommand(),
			untrustCommand(),
			mcpCommand(),
			bridgeCommand(),
			demoCommand(),
			completionCommand(),
		},
		EnableBashCompletion: true, // completion.go
		CustomAppHelpTemplate: cli.AppHelpTemplate + examplesSection([]string{
			"autocoder apply response.md       # apply a model's response, one commit per step",
			"autocoder log                     # the steps on the work branch",
			"autocoder undo                    # drop the newest one",
			"autocoder demo                    # see it work in a throwaway repository",
		}),
		CommandNotFound: func(c *cli.Context, name string) {},
	}
	app.Action = func(c *cli.Context) error {
		if c.NArg() > 0 {
			return unknownCommand(app, c.Args().First())
		}
		return cli.ShowAppHelp(c)
	}
	for _, cmd := range app.Commands {
		cmd.BashComplete = completeCommand // completion.go
	}
	wireUsage(app) // usage.go: one line, a hint, exit 2
	return app
}

// formatFlag is --format text|json, shared by the reporting commands. A new
// flag each time: urfave/cli writes into a flag when it parses, and tests
// run several apps at once (go test -race saw the shared one).
func formatFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text or json"}
}

// quietFlag is --quiet (-q) of the commands that report step by step:
// nothing on success, but every error and the exit code as without it.
func quietFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success: only errors (the exit code says the rest); --format json is unchanged"}
}

func format(c *cli.Context) (string, error) {
	f := c.String("format")
	if f != "text" && f != "json" {
		return "", &usageError{msg: "--format must be text or json, not " + f, try: "Try: --format json"}
	}
	return f, nil
}

// openEngine opens the repository around -C (or the current folder) with
// its settings (autocoder.Open, the library entry point), recovering an interrupted run first.
func openEngine(c *cli.Context, branch string) (*lib.Engine, error) {
	return openEngineWith(c, lib.Options{Branch: branch})
}

// openEngineWith is openEngine with the options o (the work branch,
// programs, a session's engine); it sets where the engine opens and how
// long it waits for another autocoder.
func openEngineWith(c *cli.Context, o lib.Options) (*lib.Engine, error) {
	dir := c.String("C")
	if s, ok := sessionDir(c); ok {
		dir = s // --worktree: the session's own worktree
	}
	if dir == "" {
		dir = "."
	}
	o.LockWait = commandLockWait
	o.Quiet = c.Bool("quiet") // apply, undo, redo: nothing on success
	return openEngineAt(c, dir, o)
}

// commandLockWait is how long a command waits while another autocoder holds
// the repository: an MCP session holds it only during a call (a few
// milliseconds, or a program's run), so a command typed beside a working
// session waits for the call in flight rather than fail; one still held
// after this is refused, naming the holder.
const commandLockWait = 5 * time.Second

// openEngineAt is autocoder.Open on the repository that contains dir, its
// notes and warnings on standard error.
func openEngineAt(c *cli.Context, dir string, o lib.Options) (*lib.Engine, error) {
	o.Log = c.App.ErrWriter
	return lib.Open(c.Context, dir, o)
}

// readCloser and writeCloser give the MCP transport the app's standard
// input and output, which it closes when the session ends.
type readCloser struct{ io.Reader }

func (r readCloser) Close() error {
	if c, ok := r.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

type writeCloser struct{ io.Writer }

func (w writeCloser) Close() error { return nil }

// readInput reads FILE, or standard input for "-" or no argument.
func readInput(c *cli.Context, limit int64) ([]byte, string, error) {
	if c.NArg() > 1 {
		return nil, "", &usageError{msg: "too many arguments", try: "Try: autocoder " + c.Command.Name + " [FILE|-]"}
	}
	name := c.Args().First()
	var r io.Reader = c.App.Reader
	if name != "" && name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, name, &usageError{msg: "cannot read the response: " + err.Error(), try: "Try: autocoder " + c.Command.Name + " path/to/response.md (or - for standard input)"}
		}
		defer f.Close()
		r = f
	} else {
		name = "standard input"
		promptIfTerminal(r, c.App.ErrWriter, isTerminal)
	}
	if limit <= 0 {
		limit = config.Default().Apply.MaxResponseBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, name, err
	}
	if int64(len(data)) > limit {
		return nil, name, &usageError{msg: fmt.Sprintf("the response is larger than %d bytes", limit),
			try: "raise [apply] max_response_bytes in autocoder.toml, or split the response"}
	}
	return data, name, nil
}
