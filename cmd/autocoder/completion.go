package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/autocoder/autocoder/prompt"

	"github.com/urfave/cli/v2"
)

// Shell completion: `autocoder ... --generate-bash-completion` answers
// with the words that may come next (App.EnableBashCompletion); each
// shell's script asks it on every Tab. urfave/cli answers for the top
// level (the commands); completeCommand answers inside a command: a flag
// being typed, a flag's value, the command's argument, or else its flags.
// An empty answer means a FILE goes there: each script then completes file
// names, so that is the one answer that lets a shell offer files.

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

// fishCompletion is the same question, asked by fish's own completion
// engine (complete -C runs it too); urfave/cli's static fish script offered
// files where none go and "help" after every command.
const fishCompletion = `# autocoder completion for fish: autocoder completion fish > ~/.config/fish/completions/autocoder.fish
function __autocoder_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l opts
    if string match -q -- '-*' $cur
        set opts ($words $cur --generate-bash-completion 2>/dev/null)
    else
        set opts ($words --generate-bash-completion 2>/dev/null)
    end
    if test (count $opts) -gt 0
        printf '%s\n' $opts
    else
        __fish_complete_path $cur
    end
end
complete -c autocoder -f -a '(__autocoder_complete)'
`

// completeCommand answers the completion question inside a command. The
// word before the cursor (urfave/cli's own answer reads it from os.Args
// too, where the script put it) decides: a flag being typed gets the flags
// it may become; a flag that takes a value gets its values (nothing: a
// FILE, or a name the shell cannot know); otherwise the command's next
// argument is completed (nothing where it is a FILE), and where no
// argument goes, the flags not given yet.
func completeCommand(c *cli.Context) {
	cmd, w := c.Command, c.App.Writer
	last := ""
	if n := len(os.Args); n > 2 {
		last = os.Args[n-2]
	}
	if isFlag(last) && !strings.Contains(last, "=") && last != "--" {
		if findFlag(cmd.Flags, last) == nil {
			cli.DefaultCompleteWithFlags(cmd)(c) // a flag being typed
			return
		}
		if takesValue(cmd.Flags, last) {
			printWords(w, flagValues[strings.TrimLeft(last, "-")])
			return
		}
	}
	values, file := argCompletion(c)
	switch {
	case file:
	case values != nil:
		printWords(w, values)
	default:
		for _, f := range cmd.Flags {
			names := f.Names()
			if names[0] == "help" || slices.ContainsFunc(names, c.IsSet) {
				continue
			}
			printWords(w, []string{dashes(names[0])})
		}
	}
}

// argCompletion is what goes where a command's next argument goes: one of
// a fixed list of values, or (file) a FILE whose name the shell completes;
// neither when no argument goes there.
func argCompletion(c *cli.Context) (values []string, file bool) {
	n := c.NArg()
	switch c.Command.Name {
	case "apply":
		return nil, n == 0 && !c.Bool("clipboard") // --clipboard reads no FILE
	case "parse":
		return nil, n == 0
	case "prompt":
		if n == 0 {
			return prompt.Dialects, false
		}
	case "completion":
		if n == 0 {
			return completionShells, false
		}
	}
	return nil, false
}

// flagValues are the values of the flags that take one from a fixed list.
var flagValues = map[string][]string{
	"format":  {"text", "json"},
	"lang":    prompt.Langs,
	"dialect": prompt.Dialects,
}

func printWords(w io.Writer, words []string) {
	for _, s := range words {
		fmt.Fprintln(w, s)
	}
}

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
				script = fishCompletion
			default:
				return &usageError{msg: "no completion for the shell " + sh, try: try}
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}
