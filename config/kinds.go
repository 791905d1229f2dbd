package config

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Kind says what a key can do, and so whether a repository's autocoder.toml
// that the user has not trusted may set it. Every key has one (keyRules);
// TestEveryFieldHasAKind fails for a Config field that has none, so a key
// added later must be classified before it can be read.
type Kind int

const (
	// Restricts: a limit or a deny pattern. The repository's value always
	// counts, but untrusted it only narrows what is in effect: the smaller
	// limit, and its deny patterns added (its "!" patterns, which re-allow,
	// dropped).
	Restricts Kind = iota + 1
	// Widens: the key runs code or sends a secret somewhere (programs, the
	// verify command, the model's URL and the variable its key is read
	// from). The repository's value counts only when the user trusted the
	// file; until then it is ignored and said so (a value that narrows, as
	// enabled = false, still counts).
	Widens
	// Chooses: a choice among things that are all safe (the model's name,
	// the prompt's dialect and language, streaming, the work branch's
	// prefix). The repository's value counts as written.
	Chooses
)

// keyRule is one key of the file: its name, its kind and the field of
// Config it sets.
type keyRule struct {
	key   string
	kind  Kind
	field func(*Config) any // a pointer to the field
}

// keyRules lists every key of autocoder.toml, in the order of the shipped
// file. Load's list of known keys is made from it.
var keyRules = []keyRule{
	{"apply.branch_prefix", Chooses, func(c *Config) any { return &c.Apply.BranchPrefix }},
	{"apply.max_file_bytes", Restricts, func(c *Config) any { return &c.Apply.MaxFileBytes }},
	{"apply.max_response_bytes", Restricts, func(c *Config) any { return &c.Apply.MaxResponseBytes }},
	{"paths.deny", Restricts, func(c *Config) any { return &c.Paths.Deny }},
	{"programs.enabled", Widens, func(c *Config) any { return &c.Programs.Enabled }},
	{"programs.allow", Widens, func(c *Config) any { return &c.Programs.Allow }},
	{"programs.env", Widens, func(c *Config) any { return &c.Programs.Env }},
	{"programs.timeout", Restricts, func(c *Config) any { return &c.Programs.Timeout }},
	{"programs.max_timeout", Restricts, func(c *Config) any { return &c.Programs.MaxTimeout }},
	{"programs.max_output_bytes", Restricts, func(c *Config) any { return &c.Programs.MaxOutputBytes }},
	{"verify.command", Widens, func(c *Config) any { return &c.Verify.Command }},
	{"verify.timeout", Restricts, func(c *Config) any { return &c.Verify.Timeout }},
	{"model.base_url", Widens, func(c *Config) any { return &c.Model.BaseURL }},
	{"model.api_key_env", Widens, func(c *Config) any { return &c.Model.APIKeyEnv }},
	{"model.model", Chooses, func(c *Config) any { return &c.Model.Name }},
	{"model.dialect", Chooses, func(c *Config) any { return &c.Model.Dialect }},
	{"model.lang", Chooses, func(c *Config) any { return &c.Model.Lang }},
	{"model.max_turns", Restricts, func(c *Config) any { return &c.Model.MaxTurns }},
	{"model.max_tokens", Restricts, func(c *Config) any { return &c.Model.MaxTokens }},
	{"model.max_retries", Restricts, func(c *Config) any { return &c.Model.MaxRetries }},
	{"model.stream", Chooses, func(c *Config) any { return &c.Model.Stream }},
	{"model.idle_timeout", Restricts, func(c *Config) any { return &c.Model.IdleTimeout }},
	{"model.answer_timeout", Restricts, func(c *Config) any { return &c.Model.AnswerTimeout }},
}

// knownKeys lists every key of the file, tables included, for the unknown
// key check and its hint naming the nearest key.
var knownKeys = func() []string {
	var out []string
	for _, r := range keyRules {
		table, _, _ := strings.Cut(r.key, ".")
		if !slices.Contains(out, table) {
			out = append(out, table)
		}
		out = append(out, r.key)
	}
	return out
}()

// Setting is one key of a file and its value as written, for messages.
type Setting struct {
	Key   string // "verify.command"
	Value string // as TOML writes it: "\"make check\"", "true", "[\"go test\"]"
}

func (s Setting) String() string { return s.Key + " = " + s.Value }

// tomlValue writes the value a field pointer holds as TOML would.
func tomlValue(p any) string {
	switch v := p.(type) {
	case *string:
		return fmt.Sprintf("%q", *v)
	case *bool:
		return fmt.Sprint(*v)
	case *int64:
		return fmt.Sprint(*v)
	case *int:
		return fmt.Sprint(*v)
	case *time.Duration:
		return fmt.Sprintf("%q", human(*v))
	case *[]string:
		return "[" + strings.Join(quoteAll(*v), ", ") + "]"
	}
	panic(fmt.Sprintf("config: no TOML form for %T", p))
}

// assign sets the field dst points to to what src points to.
func assign(dst, src any) {
	switch d := dst.(type) {
	case *string:
		*d = *src.(*string)
	case *bool:
		*d = *src.(*bool)
	case *int64:
		*d = *src.(*int64)
	case *int:
		*d = *src.(*int)
	case *time.Duration:
		*d = *src.(*time.Duration)
	case *[]string:
		*d = slices.Clone(*src.(*[]string))
	default:
		panic(fmt.Sprintf("config: cannot assign %T", dst))
	}
}

// narrow sets the field dst points to to the narrower of it and src: the
// smaller limit, or the deny patterns of both (src's "!" patterns, which
// re-allow, left out).
func narrow(dst, src any) {
	switch d := dst.(type) {
	case *int64:
		*d = min(*d, *src.(*int64))
	case *int:
		*d = min(*d, *src.(*int))
	case *time.Duration:
		*d = min(*d, *src.(*time.Duration))
	case *[]string:
		out := slices.Clone(*d)
		for _, p := range *src.(*[]string) {
			if !strings.HasPrefix(p, "!") && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		*d = out
	default:
		panic(fmt.Sprintf("config: no narrower value for %T", dst))
	}
}

// overlay returns base with the keys set (by name) of over: all of them
// when over is trusted; otherwise Restricts keys only narrow, Chooses keys
// count, and Widens keys are left out, except a bool that turns something
// off. ignored lists the Widens keys left out whose value differs from
// base's: what trusting the file would change.
func overlay(base Config, over Config, set map[string]bool, trusted bool) (out Config, ignored []Setting) {
	out = base
	out.Paths.Deny = slices.Clone(base.Paths.Deny)
	out.Programs.Allow = slices.Clone(base.Programs.Allow)
	out.Programs.Env = slices.Clone(base.Programs.Env)
	for _, r := range keyRules {
		if !set[r.key] {
			continue
		}
		dst, src := r.field(&out), r.field(&over)
		switch {
		case trusted || r.kind == Chooses:
			assign(dst, src)
		case r.kind == Restricts:
			narrow(dst, src)
		case r.kind == Widens:
			if b, ok := dst.(*bool); ok {
				if !*src.(*bool) {
					*b = false // off only narrows
					continue
				}
			}
			if tomlValue(dst) != tomlValue(src) {
				ignored = append(ignored, Setting{Key: r.key, Value: tomlValue(src)})
			}
		}
	}
	return out, ignored
}

// Within returns c, settings read again while a session runs, kept within
// bound, those the session began with: a change can narrow what the
// session may do, never widen it (DESIGN: a configuration written during
// a session never takes effect in it). A step may write autocoder.toml
// where the user's deny list leaves it writable: empty it, dropping the
// deny patterns and limits it set, or write back a content the user
// trusted once; the user's own narrowing (autocoder untrust, a new deny
// pattern) still counts at once, and what they widen counts from the next
// session.
//
// Restricts keys take the narrower value, but for the deny list, which is
// c's: with "!" patterns no one list denies exactly what either denies,
// so the caller denies what bound.Denied or the result's Denied denies.
// Widens keys keep their value where c's is bound's; otherwise a switch is
// on only where both have it on, a list keeps the entries both have, and
// a command is none. Chooses keys and the [model] table (the session's
// model client is made) stay bound's.
func (c Config) Within(bound Config) Config {
	out := bound
	out.Programs.Allow = slices.Clone(bound.Programs.Allow)
	out.Programs.Env = slices.Clone(bound.Programs.Env)
	for _, r := range keyRules {
		if r.kind == Chooses || strings.HasPrefix(r.key, "model.") {
			continue
		}
		dst, now := r.field(&out), r.field(&c)
		switch {
		case r.key == "paths.deny":
			assign(dst, now)
		case r.kind == Restricts:
			narrow(dst, now)
		case r.kind == Widens:
			both(dst, now)
		}
	}
	return out
}

// both sets the Widens field dst points to to what it and src both allow:
// a switch on in both, the list entries in both, a command only where it
// is the same.
func both(dst, src any) {
	switch d := dst.(type) {
	case *bool:
		*d = *d && *src.(*bool)
	case *[]string:
		*d = slices.DeleteFunc(*d, func(e string) bool { return !slices.Contains(*src.(*[]string), e) })
	case *string:
		if *d != *src.(*string) {
			*d = ""
		}
	default:
		panic(fmt.Sprintf("config: no common value for %T", dst))
	}
}
