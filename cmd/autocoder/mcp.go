package main

import (
	"os"

	"github.com/autocoder/autocoder/mcpserver"
	"github.com/autocoder/autocoder/txn"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"
)

// version is reported by `autocoder mcp` as serverInfo.version.
const version = "0.1.0"

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the FlyCode tools over MCP on standard input and output",
		CustomHelpTemplate: examples(
			"claude mcp add autocoder -- autocoder mcp   # Claude Code, in the repository",
			"autocoder mcp --root ~/src/project          # what an MCP client's configuration starts",
		),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Aliases: []string{"C"}, Usage: "the repository `DIR` (default: the client's roots, then the working folder)"},
			&cli.StringFlag{Name: "branch", Usage: "work branch `NAME` for the tool calls' commits"},
			&cli.BoolFlag{Name: "allow-programs", Usage: "let process_run and shell_exec run any program"},
			&cli.IntFlag{Name: "max-result", Value: mcpserver.DefaultMaxResult, Usage: "cap a tool result at `BYTES` (the rest is asked for in parts)"},
			&cli.DurationFlag{Name: "lock-wait", Value: mcpserver.DefaultLockWait, Usage: "wait up to `DURATION` while another autocoder works in the repository"},
			&cli.DurationFlag{Name: "keepalive", Value: mcpserver.DefaultKeepAlive, Usage: "ping the client every `DURATION` (0: never)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return &usageError{msg: "mcp takes no arguments", try: "Try: autocoder mcp --root DIR (an MCP client starts it and talks on its standard input and output)"}
			}
			root := c.String("root")
			for _, l := range c.Lineage() {
				if root == "" {
					root = l.String("C") // autocoder -C DIR mcp
				}
			}
			wd, _ := os.Getwd()
			keepalive := c.Duration("keepalive")
			if keepalive == 0 {
				keepalive = -1
			}
			s := mcpserver.New(mcpserver.Options{
				Version:   version,
				Root:      root,
				Dir:       wd,
				MaxResult: c.Int("max-result"),
				LockWait:  c.Duration("lock-wait"),
				KeepAlive: keepalive,
				Log:       c.App.ErrWriter,
				Open: func(dir string) (*txn.Engine, error) {
					e, _, err := openEngineAt(c, dir, c.String("branch"), c.Bool("allow-programs"), c.Duration("lock-wait"), true)
					return e, err
				},
			})
			return s.Run(c.Context, &sdk.IOTransport{Reader: readCloser{c.App.Reader}, Writer: writeCloser{c.App.Writer}})
		},
	}
}
