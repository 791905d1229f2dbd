package main

import (
	"fmt"
	"os"

	lib "github.com/autocoder/autocoder"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/mcpserver"
)

// version is reported by `autocoder mcp` as serverInfo.version.
const version = "0.1.0"

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve the FlyCode tools over MCP on standard input and output, or over Streamable HTTP (--http)",
		ArgsUsage: "[--http [ADDR]]",
		CustomHelpTemplate: examples(
			"claude mcp add autocoder -- autocoder mcp   # Claude Code, in the repository",
			"autocoder mcp --root ~/src/project          # what an MCP client's configuration starts",
			"autocoder mcp --http                        # clients connect to http://127.0.0.1:8767/mcp with the token",
			"autocoder mcp --worktree --root ~/src/p     # a session in a worktree and branch of its own",
		),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Aliases: []string{"C"}, Usage: "the repository `DIR` (default: the client's roots, then the working folder)"},
			&cli.StringFlag{Name: "branch", Usage: "work branch `NAME` for the tool calls' commits"},
			&cli.BoolFlag{Name: "allow-programs", Usage: "let process_run and shell_exec run any program"},
			&cli.IntFlag{Name: "max-result", Value: mcpserver.DefaultMaxResult, Usage: "cap a tool result at `BYTES` (the rest is asked for in parts)"},
			&cli.DurationFlag{Name: "lock-wait", Value: mcpserver.DefaultLockWait, Usage: "wait up to `DURATION` while another autocoder works in the repository"},
			&cli.DurationFlag{Name: "keepalive", Value: mcpserver.DefaultKeepAlive, Usage: "ping the client every `DURATION` (0: never; over HTTP never unless given)"},
			&cli.BoolFlag{Name: "http", Usage: "serve MCP over Streamable HTTP at ADDR (default " + mcpserver.DefaultHTTPAddr + "), with a bearer token"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "with --http: let ADDR be an address other machines reach"},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: "with --http: accept requests from the browser `ORIGIN` (e.g. https://example.com; repeatable)"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "with --http: accept the Host `NAME:PORT` besides 127.0.0.1, localhost and [::1] (a tunnel's name; repeatable)"},
			worktreeFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 && !c.Bool("http") || c.NArg() > 1 {
				return &usageError{msg: "mcp takes no arguments but --http's ADDR", try: "Try: autocoder mcp --root DIR (an MCP client starts it and talks on its standard input and output), or autocoder mcp --http 127.0.0.1:8767"}
			}
			root := c.String("root")
			for _, l := range c.Lineage() {
				if root == "" {
					root = l.String("C") // autocoder -C DIR mcp
				}
			}
			wd, _ := os.Getwd()
			if c.Bool("worktree") && root == "" {
				root = wd // the session is made when the server starts, before any client's roots
			}
			return inWorktree(c, root, func(dir string) error { return serveMCP(c, dir, wd) })
		},
	}
}

// serveMCP serves MCP for the repository root (or the client's roots when
// "") as mcp's flags say.
func serveMCP(c *cli.Context, root, wd string) error {
	keepalive := c.Duration("keepalive")
	if c.Bool("http") && !c.IsSet("keepalive") {
		// A client over HTTP may hold no stream the server's pings
		// could travel on; a session ends when it says so.
		keepalive = 0
	}
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
		Engine: lib.Options{Branch: c.String("branch"), AllowPrograms: c.Bool("allow-programs"),
			LockWait: c.Duration("lock-wait"), Log: c.App.ErrWriter},
	})
	if c.Bool("http") {
		return serveHTTP(c, s, root, wd)
	}
	return s.Run(c.Context, &sdk.IOTransport{Reader: readCloser{c.App.Reader}, Writer: writeCloser{c.App.Writer}})
}

// serveHTTP is mcp --http: the repository is fixed at start (--root, -C
// or the working folder), the token read or made, and the address and the
// token's file named on standard error (never the token).
func serveHTTP(c *cli.Context, s *mcpserver.Server, root, wd string) error {
	if root == "" {
		root = wd
	}
	repo, err := gitops.Open(root) // before listening: a wrong folder is said at once
	if err != nil {
		return err
	}
	repo.Close()
	if err := mcpserver.CheckOrigins(c.StringSlice("allow-origin")); err != nil {
		return err
	}
	path, err := mcpserver.TokenFile()
	if err != nil {
		return err
	}
	tok, err := mcpserver.LoadToken(path)
	if err != nil {
		return err
	}
	addr := c.Args().First()
	if addr == "" {
		addr = mcpserver.DefaultHTTPAddr
	}
	ln, err := mcpserver.Listen(addr, c.Bool("allow-remote"))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "autocoder: MCP over HTTP at http://%s%s for %s\n", ln.Addr(), mcpserver.HTTPPath, repo.Root)
	fmt.Fprintf(c.App.ErrWriter, "autocoder: clients send the header \"Authorization: Bearer TOKEN\", with the token in %s\n", path)
	return s.Serve(c.Context, ln, mcpserver.HTTPOptions{Token: tok, Origins: c.StringSlice("allow-origin"), Hosts: c.StringSlice("allow-host")})
}
