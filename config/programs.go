package config

import "strings"

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

// ForbiddenEnv says why a step may never set the variable k, or "": Load
// refuses such a name on the [programs] env list, and the program policy
// (package runner) refuses it in a step's env whatever the list says.
func ForbiddenEnv(k string) string {
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
