package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Shell completion: urfave/cli answers `autocoder ... --generate-bash-completion`
// with the commands (or, after a "-", the flags) that may come next
// (App.EnableBashCompletion); each shell's script asks it on every Tab.
// fish gets urfave/cli's own static script (App.ToFishCompletion).

// completionFlag is the flag urfave/cli answers with completions when it
// ends a command line.
const completionFlag = "--generate-bash-completion"

// bashCompletion asks autocoder itself for the words that may follow the
// words before the cursor. It runs the words as they are (no eval: a
// command line being typed is never executed as shell code), and needs no
// bash-completion package.
const bashCompletion = `# autocoder completion for bash: source it, or put it in
# ~/.local/share/bash-completion/completions/autocoder
_autocoder_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o bashdefault -o default -F _autocoder_complete autocoder
`

// zshCompletion is the same question; zsh shows each command's usage
// beside it (urfave/cli writes "name:usage" when $0 names zsh).
const zshCompletion = `#compdef autocoder
# autocoder completion for zsh: source it, or put it in a folder of $fpath as _autocoder
_autocoder() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _autocoder autocoder
`

// completionShells are the shells completion writes a script for.
var completionShells = []string{"bash", "zsh", "fish"}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for " + strings.Join(completionShells, ", "),
		ArgsUsage: "SHELL",
		CustomHelpTemplate: examples(
			"source <(autocoder completion bash)      # in ~/.bashrc",
			"source <(autocoder completion zsh)       # in ~/.zshrc",
			"autocoder completion fish > ~/.config/fish/completions/autocoder.fish",
		),
		Action: func(c *cli.Context) error {
			try := "Try: autocoder completion " + strings.Join(completionShells, "|")
			if c.NArg() != 1 {
				return &usageError{msg: "completion takes one shell", try: try}
			}
			var script string
			switch sh := c.Args().First(); sh {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				script = s
			default:
				return &usageError{msg: "no completion for the shell " + sh, try: try}
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}
