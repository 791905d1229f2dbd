package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/shellwords"
)

// ProgramAllowed reports whether a step may run a program, and why (the
// reason is meant for the feedback and is never empty).
//
// args == nil means command is one shell command line (it runs with
// /bin/sh -c); otherwise command is the program and args its arguments, run
// without a shell. flagAll is the command-line flag that allows every
// program: it wins over the file.
//
// Otherwise programs must be enabled and the command's words must start with
// the words of an allow entry. A shell command line must be a single simple
// command with fixed words (shellwords.Simple): an operator, a redirection,
// an expansion, a glob or a comment would let the shell decide what runs,
// so such a line is refused whatever the allow-list says.
func (c Config) ProgramAllowed(command string, args []string, flagAll bool) (bool, string) {
	if flagAll {
		return true, "every program is allowed by the command-line flag"
	}
	if !c.Programs.Enabled {
		// The command-line flag is the user's to give, not the model's:
		// the user is told its name apart (the refused-program hint).
		return false, "programs are off: set enabled = true under [programs] in autocoder.toml " +
			"and add the command to allow"
	}
	var words []string
	if args == nil {
		// One splitter for the policy and the Axon reader (shellwords, over
		// mvdan.cc/sh): the words it returns are exactly the words /bin/sh
		// would run, and a line that is more than one simple command with
		// fixed words (a list, a pipeline, a redirection, an expansion, a
		// glob, a tilde or brace expansion, a comment) is refused, since
		// the shell, not the allow list, would decide what runs.
		w, err := commandWords(command)
		if err != nil {
			return false, fmt.Sprintf("command %q is not one simple command with fixed words: %v; "+
				"run one program with its arguments, without shell operators, writing every argument out "+
				"and quoting what the shell would expand ('*.go')", short(command), err)
		}
		words = w
	} else {
		words = append([]string{command}, args...)
	}
	if len(words) == 0 || words[0] == "" {
		return false, "the command is empty"
	}
	// Every entry the command starts with is tried: a longer entry may name
	// an argument a shorter one does not permit.
	refused := ""
	for _, entry := range c.Programs.Allow {
		prefix, err := commandWords(entry)
		if err != nil || len(prefix) == 0 {
			continue // Load refuses such entries; a hand-built Config allows nothing by them
		}
		if !hasWordPrefix(words, prefix) {
			continue
		}
		f, why := widens(words, len(prefix))
		if f == "" {
			return true, fmt.Sprintf("allowed by the [programs] allow entry %q", entry)
		}
		if refused == "" {
			refused = fmt.Sprintf("%q would let %s run or write something other than what the allow entry %q permits (%s); "+
				"drop %s, or add an allow entry that names it (such as %q)", short(f), words[0], entry, why, short(f), short(entry+" "+f))
		}
	}
	if refused != "" {
		return false, refused
	}
	line := strings.Join(words, " ")
	if len(c.Programs.Allow) == 0 {
		return false, fmt.Sprintf("%q is not allowed: the [programs] allow list in autocoder.toml is empty; "+
			"add a prefix of the command, such as %q", short(line), words[0])
	}
	return false, fmt.Sprintf("%q is not allowed: it starts with none of the [programs] allow entries %s; "+
		"add a prefix of it to allow in autocoder.toml", short(line), quoteList(c.Programs.Allow))
}

// hasWordPrefix reports whether words starts with prefix, word for word.
func hasWordPrefix(words, prefix []string) bool {
	if len(prefix) > len(words) {
		return false
	}
	for i, p := range prefix {
		if words[i] != p {
			return false
		}
	}
	return true
}

// commandWords is shellwords.Simple with an empty line read as no words
// (which the callers refuse with their own message). A control character
// other than a tab or a new line is refused first: the shell parser reads a
// carriage return as a blank where /bin/sh keeps it in the word, so the
// words compared would not be the words run, and a terminal showing the
// command would hide what precedes it.
func commandWords(line string) ([]string, error) {
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return nil, fmt.Errorf("the control character %q at byte %d", c, i+1)
		}
	}
	words, err := shellwords.Simple(line)
	var ns *shellwords.NotSimpleError
	if errors.As(err, &ns) && ns.Kind == shellwords.KindEmpty {
		return nil, nil
	}
	return words, err
}

// short shortens s for a message.
func short(s string) string {
	const n = 60
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// DefaultProgramEnv is [programs] env when the file does not set it: names
// that change how verbose or colourful a program is, never what it runs.
var DefaultProgramEnv = []string{"CI", "NODE_ENV", "RUST_BACKTRACE", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
	"NO_COLOR", "FORCE_COLOR", "TZ", "LANG", "LC_ALL", "DEBUG", "VERBOSE"}

// neverEnv are the variables (a trailing * for a prefix) that decide which
// program runs, where it looks for code, or which git repository and
// configuration it uses: a step that sets one would widen its own
// permission (PATH=tools:… runs a go the response wrote; GIT_CONFIG_* turns
// on core.fsmonitor; GOFLAGS=-exec=… runs a script).
var neverEnv = []string{"PATH", "LD_*", "DYLD_*", "GIT_*", "GO*", "CGO_*", "CC", "CXX", "BASH_ENV", "ENV", "IFS",
	"SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "HOME", "XDG_*", "TMPDIR", "PYTHONPATH", "PYTHONHOME",
	"PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONEXECUTABLE", "NODE_OPTIONS", "NODE_PATH", "NPM_CONFIG_*",
	"PERL5LIB", "PERL5OPT", "PERLLIB", "RUBYOPT", "RUBYLIB", "GEM_*", "BUNDLE_*", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS",
	"CARGO_*", "RUSTC*", "RUSTFLAGS", "RUSTDOCFLAGS", "EDITOR", "VISUAL", "PAGER", "SSH_*", "http_proxy", "https_proxy"}

// envKeyNever says why a variable can never be set by a step, or "".
func envKeyNever(k string) string {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return "it is not a variable name"
	}
	for _, n := range neverEnv {
		if p, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(strings.ToUpper(k), strings.ToUpper(p)) || strings.EqualFold(k, n) {
			return "it decides which program runs or what code it loads"
		}
	}
	return ""
}

// ProgramEnvAllowed reports whether a step may run its programs with env
// added to autocoder's own environment, and why not: every key must be on
// [programs] env and none may decide what runs (see neverEnv). The reason
// names the first key refused, in sorted order.
func (c Config) ProgramEnvAllowed(env map[string]string) (bool, string) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if why := envKeyNever(k); why != "" {
			return false, fmt.Sprintf("the step's env sets %s, which a step may never set: %s; "+
				"remove it from env (set it in autocoder's own environment if the program needs it)", k, why)
		}
		listed := false
		for _, a := range c.Programs.Env {
			if a == k {
				listed = true
			}
		}
		if !listed {
			return false, fmt.Sprintf("the step's env sets %s, which is not on the [programs] env list of autocoder.toml (%s); "+
				"remove it from env, or add it to that list", k, strings.Join(c.Programs.Env, ", "))
		}
	}
	return true, "every variable of the step's env is on the [programs] env list"
}
