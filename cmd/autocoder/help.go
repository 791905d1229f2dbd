package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// examples is a command's help template: urfave/cli's, then an EXAMPLES
// section with lines, each a command line and what it does. Every command
// has one (TestEveryCommandHasExamples): a person learns a command from
// an example first.
func examples(lines ...string) string {
	return cli.CommandHelpTemplate + examplesSection(lines)
}

func examplesSection(lines []string) string {
	var b strings.Builder
	b.WriteString("\nEXAMPLES:\n")
	for _, l := range lines {
		// The lines are template text: none may hold an action.
		if strings.Contains(l, "{{") {
			panic("examples: a template action in " + l)
		}
		b.WriteString("   " + l + "\n")
	}
	return b.String()
}
