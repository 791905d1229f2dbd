package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/autocoder/autocoder/prompt"
	"github.com/autocoder/autocoder/shellwords"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/suggest"
	"github.com/autocoder/autocoder/textpos"
)

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// Error is one problem with autocoder.toml: a syntax error, an unknown key or
// a bad value. Load returns one, or several joined with errors.Join; find the
// first with errors.As.
type Error struct {
	File string // the file's path as Load was given it
	Line int    // 1-based; 0 when the place is not known
	Col  int    // 1-based; 0 when not known
	Key  string // "programs.timeout"; empty for a syntax error
	Msg  string // what is wrong
	Fix  string // what to write instead: the hint
	Err  error  // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Class is usage: autocoder.toml cannot be used as written.
func (e *Error) Class() step.Class { return step.ClassUsage }

// Hint says what to do.
func (e *Error) Hint() string { return e.Fix }

// maxFileBytes caps a configuration file: a real one is a few KiB, and a
// committed file is not a reason to read without end.
const maxFileBytes = 1 * MiB

// readFile reads the configuration file name: nil and no error when it
// does not exist. What is not a regular file is refused before it is
// opened: a repository may commit autocoder.toml as a symlink to
// ~/.netrc, to /dev/zero (read without end) or a named pipe (waited on
// forever). followLink lets the user's own file be a symlink (a dotfiles
// manager makes it one); the repository's never is.
func readFile(name string, followLink bool) ([]byte, error) {
	stat := os.Lstat
	if followLink {
		stat = os.Stat
	}
	fi, err := stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &Error{File: name, Msg: "is a symbolic link, which autocoder does not follow for the repository's configuration",
			Fix: "make autocoder.toml a regular file (copy what it should hold), or remove it to use the defaults"}
	case fi.IsDir():
		return nil, &Error{File: name, Msg: "is a folder, not a file", Fix: "remove it, or make it a file"}
	case !fi.Mode().IsRegular():
		return nil, &Error{File: name, Msg: "not a regular file (a pipe, a device or a socket)",
			Fix: "make it a file, or remove it to use the defaults"}
	case fi.Size() > maxFileBytes:
		return nil, &Error{File: name, Msg: fmt.Sprintf("is larger than %d bytes", maxFileBytes), Fix: "a configuration file holds a few settings: shorten it"}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	// The file opened must be the one looked at: a symlink put in its
	// place meanwhile is not followed.
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		return nil, &Error{File: name, Msg: "changed while it was being read", Fix: "run the command again"}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > maxFileBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("is larger than %d bytes", maxFileBytes), Fix: "a configuration file holds a few settings: shorten it"}
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// value holds one key's TOML value as decoded, so that type errors are ours
// to word rather than the decoder's.
type value struct {
	v   any
	set bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (v *value) UnmarshalTOML(data any) error {
	v.v, v.set = data, true
	return nil
}

// file mirrors autocoder.toml. Its tags are the list of known keys.
type file struct {
	Apply struct {
		BranchPrefix     value `toml:"branch_prefix"`
		MaxFileBytes     value `toml:"max_file_bytes"`
		MaxResponseBytes value `toml:"max_response_bytes"`
	} `toml:"apply"`
	Paths struct {
		Deny value `toml:"deny"`
	} `toml:"paths"`
	Programs struct {
		Enabled        value `toml:"enabled"`
		Allow          value `toml:"allow"`
		Env            value `toml:"env"`
		Timeout        value `toml:"timeout"`
		MaxTimeout     value `toml:"max_timeout"`
		MaxOutputBytes value `toml:"max_output_bytes"`
	} `toml:"programs"`
	Verify struct {
		Command value `toml:"command"`
		Timeout value `toml:"timeout"`
	} `toml:"verify"`
	Model struct {
		BaseURL       value `toml:"base_url"`
		APIKeyEnv     value `toml:"api_key_env"`
		Name          value `toml:"model"`
		Dialect       value `toml:"dialect"`
		Lang          value `toml:"lang"`
		MaxTurns      value `toml:"max_turns"`
		MaxTokens     value `toml:"max_tokens"`
		MaxRetries    value `toml:"max_retries"`
		Stream        value `toml:"stream"`
		IdleTimeout   value `toml:"idle_timeout"`
		AnswerTimeout value `toml:"answer_timeout"`
	} `toml:"model"`
}

// loader collects the problems of one file.
type loader struct {
	name string
	text string
	pos  map[string]position
	errs []error
}

// parse reads one file's text over Default, and says which keys it set.
func parse(name string, data []byte) (Config, map[string]bool, error) {
	l := &loader{name: name, text: string(data)}
	var f file
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		return Config{}, nil, l.decodeError(err)
	}
	l.pos = keyPositions(l.text)
	l.checkKeys(md)
	set := map[string]bool{}
	for _, k := range md.Keys() {
		set[k.String()] = true
	}

	c := Default()
	l.str(f.Apply.BranchPrefix, "apply.branch_prefix", &c.Apply.BranchPrefix)
	l.size(f.Apply.MaxFileBytes, "apply.max_file_bytes", &c.Apply.MaxFileBytes)
	l.size(f.Apply.MaxResponseBytes, "apply.max_response_bytes", &c.Apply.MaxResponseBytes)
	l.list(f.Paths.Deny, "paths.deny", &c.Paths.Deny)
	l.boolean(f.Programs.Enabled, "programs.enabled", &c.Programs.Enabled)
	l.list(f.Programs.Allow, "programs.allow", &c.Programs.Allow)
	l.list(f.Programs.Env, "programs.env", &c.Programs.Env)
	l.duration(f.Programs.Timeout, "programs.timeout", &c.Programs.Timeout)
	l.duration(f.Programs.MaxTimeout, "programs.max_timeout", &c.Programs.MaxTimeout)
	var out int64 = int64(c.Programs.MaxOutputBytes)
	l.size(f.Programs.MaxOutputBytes, "programs.max_output_bytes", &out)
	c.Programs.MaxOutputBytes = int(out)
	l.str(f.Verify.Command, "verify.command", &c.Verify.Command)
	l.duration(f.Verify.Timeout, "verify.timeout", &c.Verify.Timeout)
	l.str(f.Model.BaseURL, "model.base_url", &c.Model.BaseURL)
	l.str(f.Model.APIKeyEnv, "model.api_key_env", &c.Model.APIKeyEnv)
	l.str(f.Model.Name, "model.model", &c.Model.Name)
	l.str(f.Model.Dialect, "model.dialect", &c.Model.Dialect)
	l.str(f.Model.Lang, "model.lang", &c.Model.Lang)
	l.size(f.Model.MaxTurns, "model.max_turns", &c.Model.MaxTurns)
	l.size(f.Model.MaxTokens, "model.max_tokens", &c.Model.MaxTokens)
	l.count(f.Model.MaxRetries, "model.max_retries", &c.Model.MaxRetries)
	l.boolean(f.Model.Stream, "model.stream", &c.Model.Stream)
	l.duration(f.Model.IdleTimeout, "model.idle_timeout", &c.Model.IdleTimeout)
	l.duration(f.Model.AnswerTimeout, "model.answer_timeout", &c.Model.AnswerTimeout)

	// Rules between values (timeout within max_timeout) only make sense
	// once every value has its type; a type error already says enough.
	if len(l.errs) == 0 {
		l.validate(c)
	}
	// Every problem at once: fixing a file one error per run is tedious
	// for a person and costs a model a round trip each. A half-read file is
	// never returned, so no caller can run on part of the user's settings.
	if len(l.errs) > 0 {
		return Config{}, nil, errors.Join(l.errs...)
	}
	return c, set, nil
}

// decodeError turns the decoder's error into an *Error with a place.
func (l *loader) decodeError(err error) error {
	e := &Error{File: l.name, Err: err, Msg: err.Error(),
		Fix: "fix the TOML syntax there; the autocoder.toml shipped with autocoder shows every key with its default"}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		// The decoder's message quotes the text it stopped at, and the
		// file may not be what it claims (the user's file may hold a
		// secret): what it quotes is left out.
		e.Line, e.Col, e.Msg, e.Err = pe.Position.Line, pe.Position.Col, unquote(pe.Message), nil
		if l.keyLine(pe.Position.Line) {
			// The decoder's message quotes the value: the key, likely.
			e.Msg, e.Err = "the line cannot be read as TOML (not shown: it may hold a key)", nil
			e.Fix = `write the value in double quotes; ` + keyHint
		}
		return e
	}
	// Type mismatches of whole tables ("apply = 1") come as plain errors
	// that carry only a line in their text; find the key ourselves.
	l.pos = keyPositions(l.text)
	for _, k := range []string{"apply", "paths", "programs", "verify", "model"} {
		if strings.Contains(err.Error(), `"`+k+`"`) {
			e.Key = k
			e.Msg = "must be a table"
			e.Fix = fmt.Sprintf("write the keys under a header line [%s]", k)
			l.place(e)
			break
		}
	}
	return e
}

// checkKeys reports every key of the file that is not one of ours.
func (l *loader) checkKeys(md toml.MetaData) {
	known := make(map[string]bool, len(knownKeys))
	for _, k := range knownKeys {
		known[k] = true
	}
	seen := map[string]bool{}
	report := func(k toml.Key) {
		s := k.String()
		if seen[s] {
			return
		}
		seen[s] = true
		for n := 1; n < len(k); n++ {
			if seen[k[:n].String()] {
				return // inside an unknown table, which is reported
			}
		}
		e := &Error{File: l.name, Key: s, Msg: "unknown key"}
		if len(k) == 2 && k[0] == "model" && secretName(k[1]) {
			// The key itself, written where the name of its variable goes.
			e.Fix = keyHint
		} else if m := closest(s, knownKeys); m != "" {
			e.Fix = fmt.Sprintf("did you mean %s? keys are lower case with underscores", m)
		} else if len(k) == 2 && known[k[0]] {
			e.Fix = fmt.Sprintf("remove it; the keys of [%s] are %s", k[0], strings.Join(tableKeys(k[0]), ", "))
		} else {
			e.Fix = "remove it; the known keys are " + strings.Join(leafKeys(), ", ")
		}
		l.place(e)
		l.errs = append(l.errs, e)
	}
	for _, k := range md.Undecoded() {
		report(k)
	}
	// The decoder matches struct fields without regard to case, so
	// "Enabled = true" counts as decoded; TOML keys are case sensitive.
	for _, k := range md.Keys() {
		if !known[k.String()] {
			report(k)
		}
	}
}

// tableKeys lists the keys of one table, without the table's name.
func tableKeys(table string) []string {
	var out []string
	for _, k := range knownKeys {
		if rest, ok := strings.CutPrefix(k, table+"."); ok {
			out = append(out, rest)
		}
	}
	return out
}

// leafKeys lists every key that holds a value.
func leafKeys() []string {
	var out []string
	for _, k := range knownKeys {
		if strings.Contains(k, ".") {
			out = append(out, k)
		}
	}
	return out
}

// bad records a bad value of key.
func (l *loader) bad(key, msg, hint string) {
	e := &Error{File: l.name, Key: key, Msg: msg, Fix: hint}
	l.place(e)
	l.errs = append(l.errs, e)
}

// place fills in the line and column of e.Key. The line itself is not
// quoted: a configuration file is not the response, and what it holds (a
// key written where its variable's name goes, a password in a file the
// repository's autocoder.toml pointed at) must not reach a terminal, a log
// or, through an MCP client, the model.
func (l *loader) place(e *Error) {
	k := e.Key
	for k != "" {
		if p, ok := l.pos[k]; ok {
			e.Line, e.Col = p.line, p.col
			return
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			return
		}
		k = k[:i]
	}
}

// unquote leaves out what a decoder's message quotes of the file (a
// word of two characters or more between quotes), keeping the single
// characters it names ('=', '.').
func unquote(msg string) string {
	return quotedText().ReplaceAllString(msg, "(text not shown)")
}

var quotedText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"[^"]{2,}"|'[^']{2,}'`) })

// keyLine reports whether line n sets api_key_env or a key whose name
// says it holds a secret (see secretName): its value may be the key.
func (l *loader) keyLine(n int) bool {
	lines := strings.Split(l.text, "\n")
	if n <= 0 || n > len(lines) {
		return false
	}
	k, _, ok := strings.Cut(lines[n-1], "=")
	k = strings.Trim(strings.TrimSpace(k), `"'`)
	return ok && (k == "api_key_env" || secretName(k))
}

func leaf(key string) string { return key[strings.LastIndexByte(key, '.')+1:] }

// describe names a TOML value's type and shows it, for messages.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", clip(x))
	case int64:
		return fmt.Sprintf("the number %d", x)
	case float64:
		return fmt.Sprintf("the number %g", x)
	case bool:
		return fmt.Sprintf("%t", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

func (l *loader) str(v value, key string, dst *string) {
	if !v.set {
		return
	}
	s, ok := v.v.(string)
	if !ok {
		l.bad(key, "want a string, found "+describe(v.v), fmt.Sprintf("write %s = \"...\": one quoted string", leaf(key)))
		return
	}
	*dst = s
}

func (l *loader) boolean(v value, key string, dst *bool) {
	if !v.set {
		return
	}
	b, ok := v.v.(bool)
	if !ok {
		l.bad(key, "want true or false, found "+describe(v.v), fmt.Sprintf("write %s = true or %s = false, without quotes", leaf(key), leaf(key)))
		return
	}
	*dst = b
}

func (l *loader) size(v value, key string, dst *int64) {
	if !v.set {
		return
	}
	// Sizes are plain numbers of bytes, not "10MiB" strings: one obvious
	// way to write them, and the shipped file says what each default is.
	n, ok := v.v.(int64)
	if !ok {
		l.bad(key, "want a whole number of bytes, found "+describe(v.v),
			fmt.Sprintf("write %s = %d (that is %d MiB), a number without quotes or units", leaf(key), *dst, *dst/MiB))
		return
	}
	if n <= 0 {
		l.bad(key, fmt.Sprintf("must be more than 0, found %d", n),
			fmt.Sprintf("write %s = %d (the default)", leaf(key), *dst))
		return
	}
	*dst = n
}

// count is a whole number, 0 or more.
func (l *loader) count(v value, key string, dst *int64) {
	if !v.set {
		return
	}
	n, ok := v.v.(int64)
	if !ok || n < 0 {
		l.bad(key, "want a whole number, 0 or more, found "+describe(v.v),
			fmt.Sprintf("write %s = %d (the default), a number without quotes", leaf(key), *dst))
		return
	}
	*dst = n
}

func (l *loader) duration(v value, key string, dst *time.Duration) {
	if !v.set {
		return
	}
	hint := fmt.Sprintf("write %s = %q: a number with a unit, s, m or h", leaf(key), human(*dst))
	s, ok := v.v.(string)
	if !ok {
		// A bare number is the likeliest mistake, and the decoder would
		// read it as nanoseconds: say which unit to add.
		msg := "want a duration string, found " + describe(v.v)
		if n, isInt := v.v.(int64); isInt {
			hint = fmt.Sprintf("write %s = \"%ds\" for %d seconds: a bare number has no unit", leaf(key), n, n)
		}
		l.bad(key, msg, hint)
		return
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		l.bad(key, fmt.Sprintf("%q is not a duration", s), hint)
		return
	}
	if d <= 0 {
		l.bad(key, fmt.Sprintf("must be more than 0, found %q", s), hint)
		return
	}
	*dst = d
}

func (l *loader) list(v value, key string, dst *[]string) {
	if !v.set {
		return
	}
	hint := fmt.Sprintf(`write %s = ["first", "second"], or %s = [] for none`, leaf(key), leaf(key))
	items, ok := v.v.([]any)
	if !ok {
		if s, isStr := v.v.(string); isStr {
			hint = fmt.Sprintf("write %s = [%q]: a list, even of one", leaf(key), s)
		}
		l.bad(key, "want a list of strings, found "+describe(v.v), hint)
		return
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			l.bad(key, fmt.Sprintf("item %d: want a string, found %s", i+1, describe(it)), hint)
			return
		}
		out = append(out, s)
	}
	*dst = out
}

// keyHint says where an API key goes: never in autocoder.toml, which is
// committed, but in a variable that [model] api_key_env names.
const keyHint = `never write the key itself in autocoder.toml (it is committed): put it in an environment variable and write its NAME, e.g. api_key_env = "DEEPSEEK_API_KEY"`

// secretName is a key of [model] or of a URL's query that would hold a key
// or a password.
func secretName(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"key", "token", "secret", "password", "passwd", "auth"} {
		if strings.Contains(k, w) && k != "api_key_env" {
			return true
		}
	}
	return false
}

// envName is the name of an environment variable as shells write them,
// and not a key: keys (sk-…, gsk_…, AIza…, hex) have dashes, start with a
// digit, or mix lower-case letters and digits over many characters, which
// variable names do not.
func envName(s string) bool {
	lower, digits := 0, 0
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			lower++
		case r >= '0' && r <= '9':
			if i == 0 {
				return false
			}
			digits++
		case r >= 'A' && r <= 'Z', r == '_':
		default:
			return false
		}
	}
	return s != "" && !(len(s) >= 20 && lower > 0 && digits >= 3)
}

// validate checks what each value means, now that all have their types.
func (l *loader) validate(c Config) {
	if !slices.Contains(prompt.Dialects, c.Model.Dialect) {
		l.bad("model.dialect", fmt.Sprintf("%q is not a dialect", c.Model.Dialect),
			"write dialect = one of "+strings.Join(quoteAll(prompt.Dialects), ", "))
	}
	if c.Model.Lang != "" && !slices.Contains(prompt.Langs, c.Model.Lang) {
		l.bad("model.lang", fmt.Sprintf("no prompt in %q", c.Model.Lang),
			"write lang = one of "+strings.Join(quoteAll(prompt.Langs), ", "))
	}
	if k := c.Model.APIKeyEnv; strings.HasPrefix(k, "$") && envName(strings.Trim(k, "${}")) {
		l.bad("model.api_key_env", "is a shell expansion; autocoder wants the variable's name",
			fmt.Sprintf(`write the name alone: api_key_env = %q`, strings.Trim(k, "${}")))
	} else if k != "" && !envName(k) {
		l.bad("model.api_key_env", "holds something that is not the name of an environment variable (a key?)", keyHint)
	}
	if u, err := url.Parse(c.Model.BaseURL); err == nil && c.Model.BaseURL != "" {
		_, pw := u.User.Password()
		secret := pw
		for q := range u.Query() {
			secret = secret || secretName(q)
		}
		if secret {
			l.bad("model.base_url", "holds a password or a key", "write the URL without it; "+keyHint)
		}
	} else if err != nil {
		// Not echoed: what cannot be read cannot be checked for a key.
		l.bad("model.base_url", "is not a URL that can be read (not shown: it may hold a key)",
			`write the server's URL, e.g. base_url = "http://localhost:11434/v1"; `+keyHint)
	}
	if msg := checkBranchPrefix(c.Apply.BranchPrefix); msg != "" {
		l.bad("apply.branch_prefix", msg, `write branch_prefix = "autocoder/": letters, digits, "-", "_" and "/", ending with "/"`)
	}
	for i, p := range c.Paths.Deny {
		if _, err := compileDeny(p); err != nil {
			l.bad("paths.deny", fmt.Sprintf("item %d %q: %v", i+1, p, err),
				`write gitignore-like patterns such as "*.pem", "secrets/**" or ".env"`)
		}
	}
	for i, a := range c.Programs.Allow {
		words, err := shellwords.Command(a)
		switch {
		case err != nil:
			l.bad("programs.allow", fmt.Sprintf("item %d %q is not a plain command prefix: %v", i+1, a, err),
				`write the first words of the commands to allow, such as "go test" or "npm run"`)
		case len(words) == 0:
			l.bad("programs.allow", fmt.Sprintf("item %d is empty", i+1),
				"remove it: an empty prefix would allow every command; use the command-line flag for that")
		}
	}
	for i, k := range c.Programs.Env {
		if why := ForbiddenEnv(k); why != "" {
			l.bad("programs.env", fmt.Sprintf("item %d %q can never be set by a step: %s", i+1, k, why),
				"remove it; set it in autocoder's own environment if the programs need it")
		}
	}
	if c.Programs.Timeout > c.Programs.MaxTimeout {
		l.bad("programs.timeout", fmt.Sprintf("%s is more than max_timeout %s", human(c.Programs.Timeout), human(c.Programs.MaxTimeout)),
			fmt.Sprintf("write timeout = %q or raise max_timeout", human(c.Programs.MaxTimeout)))
	}
}

// checkBranchPrefix returns what is wrong with a branch prefix, or "". The
// rules are git check-ref-format's, applied to the prefix's components.
func checkBranchPrefix(p string) string {
	if p == "" {
		return "must not be empty"
	}
	if !strings.HasSuffix(p, "/") {
		return fmt.Sprintf("%q must end with \"/\"", p)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return fmt.Sprintf("%q holds %q, which git does not allow in a branch name", p, r)
		}
	}
	if strings.Contains(p, "..") || strings.Contains(p, "@{") {
		return fmt.Sprintf("%q holds \"..\" or \"@{\", which git does not allow in a branch name", p)
	}
	for _, comp := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		switch {
		case comp == "":
			return fmt.Sprintf("%q has an empty part (\"//\" or a leading \"/\")", p)
		case strings.HasPrefix(comp, "."):
			return fmt.Sprintf("%q has a part starting with \".\"", p)
		case strings.HasSuffix(comp, ".lock"):
			return fmt.Sprintf("%q has a part ending with \".lock\"", p)
		case comp == "@":
			return fmt.Sprintf("%q has a part that is \"@\"", p)
		}
	}
	return ""
}

// closest returns the known key s most likely meant (suggest.Closest:
// letter case, a small edit distance, or the same leaf under another
// table), or "".
func closest(s string, keys []string) string {
	return suggest.Closest(s, keys)
}

// human writes d the way a person writes it in the file: "60s", "10m".
func human(d time.Duration) string {
	switch {
	case d > 0 && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d > 0 && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d > 0 && d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// clip quotes a value in a message, cut as every message cuts one.
func clip(s string) string { return textpos.Clip(s, 60) }
