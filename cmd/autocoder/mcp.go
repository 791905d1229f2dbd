package main

import (
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
	"github.com/urfave/cli/v2"
)

// version is reported by `autocoder mcp` as serverInfo.version.
const version = "0.1.0"

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the FlyCode tools over MCP on standard input and output",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "branch", Usage: "work branch `NAME` for the tool calls' commits"},
			&cli.BoolFlag{Name: "allow-programs", Usage: "let process_run and shell_exec run any program"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return &usageError{msg: "mcp takes no arguments", try: "Try: autocoder mcp (an MCP client starts it and talks on its standard input and output)"}
			}
			// Check once that the repository opens, so a wrong folder is an
			// error at start, not on the first call.
			e, _, err := openEngine(c, c.String("branch"))
			if err != nil {
				return err
			}
			e.Close()
			s := &mcp.Server{Version: version, Apply: func(st *step.Step) step.Result {
				// The repository lock is taken per call, so the CLI can be
				// used between calls.
				e, _, err := openEngineWith(c, c.String("branch"), c.Bool("allow-programs"))
				if err != nil {
					return step.Result{Step: st, StepID: st.ID, Status: step.StatusFailed,
						Error: err.Error(), Hint: txn.Hint(err), Code: exitCode(err)}
				}
				defer e.Close()
				return e.Apply(c.Context, st) // Apply writes the index itself outside a Run
			}}
			return s.Serve(c.App.Reader, c.App.Writer)
		},
	}
}
