package main

import (
	"slices"
	"strings"

	"github.com/autocoder/autocoder/suggest"
	"github.com/urfave/cli/v2"
)

// A usage error is one line on standard error, a hint, and exit code 2
// (a script reads 1 as "a step failed"), never the whole help on standard
// output: urfave/cli prints that for a command without OnUsageError, so
// every command gets one (wireUsage). A misspelt command or flag gets the
// one "did you mean" (package suggest).

// wireUsage gives every command of app, and app itself, the usage error
// handler.
func wireUsage(app *cli.App) {
	app.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		return flagUsageError("autocoder", app.Flags, err)
	}
	var wire func(prefix string, cmds []*cli.Command)
	wire = func(prefix string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			name := prefix + " " + cmd.Name
			flags := cmd.Flags
			cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
				return flagUsageError(name, flags, err)
			}
			wire(name, cmd.Subcommands)
		}
	}
	wire("autocoder", app.Commands)
}

// flagUsageError is err, a flag that cmd (say "autocoder apply") cannot
// parse, as a usage error: an unknown flag with the flag it most likely
// meant.
func flagUsageError(cmd string, flags []cli.Flag, err error) error {
	msg := err.Error()
	const unknown = "flag provided but not defined: "
	if name, ok := strings.CutPrefix(msg, unknown); ok {
		name = strings.TrimLeft(name, "-")
		msg = "unknown flag " + dashes(name) + " for " + cmd
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		if m := suggest.Closest(name, names); m != "" {
			msg += ": did you mean " + dashes(m) + "?"
		}
	} else {
		msg = cmd + ": " + msg
	}
	return &usageError{msg: msg, try: "Try: " + cmd + " --help"}
}

// unknownCommand is a command name app does not have, with the one it
// most likely meant.
func unknownCommand(app *cli.App, name string) error {
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Names()...)
	}
	msg := "unknown command " + name
	if m := suggest.Closest(name, names); m != "" {
		msg += ": did you mean " + m + "?"
	}
	return &usageError{msg: msg, try: "Try: autocoder --help"}
}

// dashes writes a flag name as it is typed: -i, --dry-run.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// interspersed moves the flags of a command line that follow its first
// argument (`autocoder apply resp.md --dry-run`) before it, where
// urfave/cli (Go's flag package) parses them: it stops at the first
// argument that is not a flag. After "--" everything is an argument, as
// before. A flag's value is kept with it (--branch NAME).
func interspersed(app *cli.App, args []string) []string {
	if n := len(args); n > 0 && args[n-1] == completionFlag {
		// Shell completion asks with the flag last, where urfave/cli
		// looks for it: it stays there.
		return append(interspersed(app, args[:n-1]), completionFlag)
	}
	if len(args) < 2 {
		return args
	}
	i := 1
	for i < len(args) && isFlag(args[i]) {
		if args[i] == "--" {
			return args
		}
		if takesValue(app.Flags, args[i]) {
			i++
		}
		i++
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd != nil && i+1 < len(args) {
		// A subcommand (bridge add PATH --name N): its own flags move.
		for _, sub := range cmd.Subcommands {
			if sub.HasName(args[i+1]) {
				cmd = sub
				i++
				break
			}
		}
	}
	if cmd == nil || cmd.SkipFlagParsing || len(cmd.Subcommands) > 0 {
		return args
	}
	rest := args[i+1:]
	var global, flags, plain, tail []string
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			tail = rest[j:]
			break
		}
		if !isFlag(a) {
			plain = append(plain, a)
			continue
		}
		if isGlobal(app, cmd, a) {
			// -C DIR after the command, as git users type it: it goes
			// before the command, where it is defined.
			global = append(global, a)
			if takesValue(app.Flags, a) && j+1 < len(rest) {
				global = append(global, rest[j+1])
				j++
			}
			continue
		}
		flags = append(flags, a)
		if takesValue(cmd.Flags, a) && j+1 < len(rest) {
			flags = append(flags, rest[j+1])
			j++
		}
	}
	if len(global) == 0 && (len(plain) == 0 || len(flags) == 0) {
		return args
	}
	out := append([]string{args[0]}, global...)
	out = append(out, args[1:i+1]...)
	out = append(out, flags...)
	if len(tail) > 0 {
		out = append(out, "--") // what follows it stays an argument
		tail = tail[1:]
	}
	out = append(out, plain...)
	return append(out, tail...)
}

// isGlobal reports whether a is one of app's own flags (-C) that cmd does
// not define itself (mcp's -C is its --root).
func isGlobal(app *cli.App, cmd *cli.Command, a string) bool {
	return findFlag(app.Flags, a) != nil && findFlag(cmd.Flags, a) == nil
}

// findFlag is the flag of flags that a (-x, --name, --name=value) names,
// or nil.
func findFlag(flags []cli.Flag, a string) cli.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// isFlag reports whether a looks like a flag ("-" is standard input).
func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' }

// takesValue reports whether the flag a (-x, --name, not --name=value) is
// one of flags that takes its value from the next argument.
func takesValue(flags []cli.Flag, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	d, ok := findFlag(flags, a).(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}
