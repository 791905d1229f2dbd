package runner

import (
	"path/filepath"
	"strings"
)

// An allow entry such as "go test" or "npm test" permits that program with
// those first words and further arguments, but never arguments that make
// the program run another program, load code or read configuration from
// elsewhere, work on another folder, or write a file of its choosing:
// those would widen the entry. The tables below say which arguments do,
// tool by tool; the README's table of allow-list rules is made from them
// (TestREADMEAllowListTable) and every row is tried (TestArgRuleRows).
// A word the entry itself holds is never refused: allow = ["go test -exec"]
// permits -exec.

// argRule is one row: arguments of some programs that widen an entry.
type argRule struct {
	// Tool is the key of the tool's spelling in tools ("go", "npm", ...).
	Tool string
	// Sub, when set, limits the rule to these subcommands (the first word
	// after the program that is not an option), separated by spaces.
	Sub string
	// Options are refused in every spelling the tool reads (see argStyle),
	// whatever their value. Separated by spaces.
	Options string
	// Vars are refused as NAME=value words (make's variable overrides), with
	// every assignment operator.
	Vars string
	// Why says what they do, for the message and the README.
	Why string
}

// argStyle is how a tool spells its options.
type argStyle struct {
	// Programs are the file names that are this tool (".exe", ".cmd" and
	// ".bat" are dropped and case is ignored before comparing).
	Programs string
	// GoFlags: -name and --name are the same option, and a test binary's
	// flags are also spelled -test.name (go test passes them on).
	GoFlags bool
	// Abbrev: a long option may be shortened to any prefix that names one
	// option (GNU getopt_long, git, nopt), so a prefix of a refused option
	// is refused too.
	Abbrev bool
	// Fold: option names ignore case and read _ as - (npm's nopt).
	Fold bool
	// ShortValue are the short options that take a value: in a bundle
	// (-abc) the rest of the word after one of them is its value, not more
	// options. Without them every letter of a bundle is taken as an option.
	ShortValue string
	// OptionsEnd: the tool reads no options after a "--" word (its
	// variables, and the path rule, still count).
	OptionsEnd bool
	// Contains: the rules' options are words, and an option whose name holds
	// one (--exec-command, --preload-module) is refused: for the programs no
	// table knows, whose options cannot be listed.
	Contains bool
}

// tools are the spellings of the tools the rules name; "" is every other
// program (the general rule).
var tools = map[string]argStyle{
	"go":     {Programs: "go", GoFlags: true},
	"git":    {Programs: "git", Abbrev: true, OptionsEnd: true},
	"npm":    {Programs: "npm pnpm yarn npx", Abbrev: true, Fold: true, OptionsEnd: true},
	"cargo":  {Programs: "cargo", OptionsEnd: true},
	"pytest": {Programs: "pytest py.test", Abbrev: true, ShortValue: "kmrWcponx", OptionsEnd: true},
	"make":   {Programs: "make gmake", Abbrev: true, ShortValue: "fCIjloWE", OptionsEnd: true},
	"node":   {Programs: "node nodejs", OptionsEnd: true},
	"":       {Contains: true, OptionsEnd: true},
}

// moduleTools are interpreters that run a tool as a module: "python -m
// pytest" is pytest, its options after the module name.
var moduleTools = []struct{ Programs, Module, Tool string }{
	{"python python3 py", "pytest", "pytest"},
}

// argRules are the rows. Options that only name a path (an output file, a
// target folder) are refused by the path rule when the path is outside; the
// options here are refused whatever their value.
var argRules = []argRule{
	{Tool: "go", Options: "-exec -toolexec -vettool", Why: "run another program"},
	{Tool: "go", Options: "-ldflags -gcflags -asmflags -gccgoflags -compiler", Why: "pass flags to the compiler or linker, which may name a program (-extld)"},
	{Tool: "go", Options: "-C -modfile -overlay -pgo -pkgdir", Why: "read code or configuration from elsewhere"},
	{Tool: "go", Options: "-o -coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir " +
		"-fuzzcachedir -gocoverdir -testlogfile -debug-actiongraph -debug-trace -debug-runtime-trace",
		Why: "write a file of their choosing"},

	{Tool: "git", Options: "-c --config-env --exec-path --upload-pack --receive-pack --exec -x --ext-diff " +
		"--open-files-in-pager -O --run --extcmd --tool --sendmail-cmd --smtp-server --to-cmd --cc-cmd",
		Why: "run another program"},
	{Tool: "git", Sub: "clone ls-remote archive", Options: "-u", Why: "run another program (--upload-pack)"},
	{Tool: "git", Options: "-C --git-dir --work-tree --namespace --super-prefix --template --separate-git-dir --no-index",
		Why: "work on another repository or folder, or read its configuration"},
	{Tool: "git", Options: "-o --output", Why: "write a file of their choosing"},

	{Tool: "npm", Options: "--script-shell --shell --node-options --node-gyp --call -c --editor --git --browser --viewer --onload-script",
		Why: "run another program, or node with options of their choosing"},
	{Tool: "npm", Options: "--package -p --registry --init-module --yes -y",
		Why: "fetch or load code from elsewhere"},
	{Tool: "npm", Options: "--prefix -C --dir --cwd --userconfig --globalconfig --global -g --location --cache " +
		"--global-dir --store-dir --modules-dir --virtual-store-dir --global-folder --cache-folder --modules-folder " +
		"--use-yarnrc --rc-filename --config",
		Why: "work in another folder or read configuration from elsewhere"},

	{Tool: "cargo", Options: "--config -Z -C", Why: "set any configuration (a target's runner, a linker) or unstable behaviour"},
	{Tool: "cargo", Options: "--registry --index --git", Why: "fetch code from elsewhere"},

	{Tool: "pytest", Options: "-p --pdbcls --tx --rsyncdir", Why: "load a plugin or other code, or run another program"},
	{Tool: "pytest", Options: "-c --config-file --rootdir --confcutdir -o --override-ini --inifile",
		Why: "read configuration or conftest files from elsewhere"},
	{Tool: "pytest", Options: "--basetemp", Why: "name a folder pytest deletes"},

	{Tool: "make", Options: "-f --file --makefile -C --directory -I --include-dir --eval -E",
		Why: "read another makefile, or make text of their choosing"},
	{Tool: "make", Vars: "SHELL .SHELLFLAGS MAKESHELL MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKEFILES MAKE VPATH",
		Why: "choose the shell, read other makefiles, or pass options"},

	{Tool: "node", Options: "-r --require --import --loader --experimental-loader -e --eval -p --print " +
		"--inspect --inspect-brk --inspect-port --inspect-wait --env-file --env-file-if-exists --openssl-config " +
		"--experimental-policy --snapshot-blob --build-snapshot --icu-data-dir --experimental-config-file",
		Why: "load or run code of their choosing, or open a debugger port"},

	{Tool: "", Options: "--exec --shell --cmd --command --config --rcfile --plugin --require " +
		"--import --load --preload --wrapper --editor --pager --hook --eval --interpreter --runner --prefix",
		Why: "name a program, load code or read configuration from elsewhere (every other program: any long option whose name holds one of these words)"},
}

// toolOf names the tool that words (the whole command) run, and the index
// of the first word that is the tool's own (after "python -m pytest").
func toolOf(words []string) (string, int) {
	name := programName(words[0])
	for _, m := range moduleTools {
		if len(words) > 2 && hasWord(m.Programs, name) && words[1] == "-m" && words[2] == m.Module {
			return m.Tool, 3
		}
	}
	for k, st := range tools {
		if k != "" && hasWord(st.Programs, name) {
			return k, 1
		}
	}
	return "", 1
}

// programName is a program's file name as the tables spell it.
func programName(p string) string {
	n := strings.ToLower(filepath.Base(strings.ReplaceAll(p, `\`, "/")))
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		n = strings.TrimSuffix(n, ext)
	}
	// python3.12 is python3.
	if strings.HasPrefix(n, "python") {
		if i := strings.IndexByte(n, '.'); i > 0 {
			n = n[:i]
		}
	}
	return n
}

func hasWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// widens returns the first of the words after an allow entry (words[from:]
// of the whole command) that lets the program do more than the entry
// permits, and why; "" when none does.
func widens(words []string, from int) (string, string) {
	tool, own := toolOf(words)
	st := tools[tool]
	sub := ""
	for _, w := range words[own:] {
		if !strings.HasPrefix(w, "-") {
			sub = w
			break
		}
	}
	optionsEnded := false
	for i := max(from, own); i < len(words); i++ {
		w := words[i]
		if st.OptionsEnd && w == "--" {
			optionsEnded = true
			continue
		}
		if !optionsEnded && strings.HasPrefix(w, "-") && w != "-" {
			for _, r := range argRules {
				if r.Tool != tool || r.Sub != "" && !hasWord(r.Sub, sub) {
					continue
				}
				for _, o := range strings.Fields(r.Options) {
					if st.optionIs(w, o) {
						return o, "such options " + r.Why
					}
				}
			}
		}
		if tool == "pytest" && !optionsEnded {
			if v, ok := st.valueOf(words, i, "-W", "--pythonwarnings"); ok {
				// action:message:category:module:lineno; a dotted category
				// is imported (pytest's _resolve_warning_category).
				if f := strings.SplitN(v, ":", 4); len(f) >= 3 && strings.Contains(f[2], ".") {
					return w, "a dotted warning category makes pytest import that module, as -p loads a plugin"
				}
			}
		}
		if tool == "make" && strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			if strings.Contains(w, "!=") {
				return w, "a != assignment runs a shell command"
			}
			if strings.Contains(w[strings.IndexByte(w, '=')+1:], "$") {
				// make expands a command-line variable: $(shell …) runs a
				// command and $(file >…) writes one, whatever the makefile.
				return w, "make expands its value, and $(shell …) or $(file …) there runs a command or writes a file"
			}
			name := strings.TrimRight(w[:strings.IndexByte(w, '=')], ":+?")
			if f := strings.Fields(name); len(f) > 0 {
				name = f[len(f)-1]
			}
			for _, r := range argRules {
				if r.Tool == tool && hasWord(r.Vars, name) {
					return w, "such variables " + r.Why
				}
			}
		}
		if p := outsidePath(w); p != "" {
			return w, "it names a path outside the repository (" + p + "); write paths relative to the repository, inside it"
		}
	}
	return "", ""
}

// optionIs reports whether the word w sets the option o (as the rules
// spell it: -x, --long, or go's -name) in the tool's spellings.
func (st argStyle) optionIs(w, o string) bool {
	if st.Fold {
		w, o = fold(w), fold(o)
	}
	name, _, _ := strings.Cut(w, "=")
	if st.Contains {
		return strings.HasPrefix(name, "--") && strings.Contains(strings.ToLower(name[2:]), strings.TrimLeft(o, "-"))
	}
	if st.GoFlags {
		n := strings.TrimPrefix(strings.TrimPrefix(name, "-"), "-")
		on := strings.TrimLeft(o, "-")
		return n == on || n == "test."+on || len(on) == 1 && strings.HasPrefix(n, on) && !strings.HasPrefix(w, "--")
	}
	if strings.HasPrefix(o, "--") {
		if !strings.HasPrefix(name, "--") {
			return false
		}
		// --config.key=value (pnpm) sets one key of --config.
		return name == o || strings.HasPrefix(name, o+".") || st.Abbrev && len(name) > 2 && strings.HasPrefix(o, name)
	}
	// A short option: -x, -xVALUE, or a letter of a bundle -abx.
	if strings.HasPrefix(w, "--") || len(w) < 2 {
		return false
	}
	if len(o) != 2 {
		return name == o // a long option with one dash
	}
	for j := 1; j < len(w); j++ {
		c := w[j]
		if c == o[1] {
			return true
		}
		// Without ShortValue every letter of a bundle counts, which errs
		// on the side of refusing.
		if !isLetter(c) || strings.IndexByte(st.ShortValue, c) >= 0 {
			return false // the rest is a value
		}
	}
	return false
}

// valueOf returns the value words[i] gives the option short (-x) or long
// (--name): the rest of the word (-xVALUE, -abxVALUE, --name=VALUE) or the
// next word.
func (st argStyle) valueOf(words []string, i int, short, long string) (string, bool) {
	w, v, next := words[i], "", i+1 < len(words)
	switch {
	case st.optionIs(w, long):
		_, after, eq := strings.Cut(w, "=")
		if eq {
			return after, true
		}
	case st.optionIs(w, short):
		v = w[strings.IndexByte(w, short[1])+1:]
		if v != "" {
			return v, true
		}
	default:
		return "", false
	}
	if next {
		return words[i+1], true
	}
	return "", true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func fold(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }

// outsidePath returns the piece of w that names a path outside the
// repository, or "": an absolute path, a home folder (~), a drive letter,
// or a path that climbs out with "..". The pieces are w and its parts
// around "=", ":" and "," (an option's value, a URL's path, a list), so
// --target-dir=/tmp and html:/tmp are found. A path is judged by its
// spelling alone: a program runs inside the repository, and this errs on
// the side of refusing (an absolute path into the repository is refused
// too; write it relative).
func outsidePath(w string) string {
	if len(w) >= 2 && w[1] == ':' && isLetter(w[0]) {
		return w
	}
	pieces := strings.FieldsFunc(w, func(r rune) bool { return r == '=' || r == ':' || r == ',' })
	for _, p := range append([]string{w}, pieces...) {
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "~") {
			return p
		}
		for _, el := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
			if el == ".." {
				return p
			}
		}
	}
	return ""
}
