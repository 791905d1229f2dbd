package config

import (
	"fmt"
	"strings"
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
// command: with a ";", "&", "|", "<", ">", "(", ")", "$", "`", "#" or a new
// line outside single quotes its words would not say what runs, so it is
// refused whatever the allow-list says.
func (c Config) ProgramAllowed(command string, args []string, flagAll bool) (bool, string) {
	if flagAll {
		return true, "every program is allowed by the command-line flag"
	}
	if !c.Programs.Enabled {
		return false, "programs are off: set enabled = true under [programs] in autocoder.toml " +
			"and add the command to allow, or pass the flag that allows every program"
	}
	var words []string
	if args == nil {
		w, err := shellWords(command)
		if err != nil {
			return false, fmt.Sprintf("command %q is not one simple command: %v; "+
				"run one program with its arguments, without shell operators", short(command), err)
		}
		words = w
	} else {
		words = append([]string{command}, args...)
	}
	if len(words) == 0 || words[0] == "" {
		return false, "the command is empty"
	}
	for _, entry := range c.Programs.Allow {
		prefix, err := shellWords(entry)
		if err != nil || len(prefix) == 0 {
			continue // Load refuses such entries; a hand-built Config allows nothing by them
		}
		if hasWordPrefix(words, prefix) {
			return true, fmt.Sprintf("allowed by the [programs] allow entry %q", entry)
		}
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

// shellWords splits a command line into words the way /bin/sh would for one
// simple command: blanks separate words, single quotes keep everything,
// double quotes keep everything but \ before $ ` " \ and a new line, and a
// backslash outside quotes keeps the next character. Anything that would
// make the shell do more than run one program with fixed words (operators,
// redirections, expansions, comments) is an error naming it.
func shellWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		inArg bool // cur holds a word, possibly empty ("")
	)
	flush := func() {
		if inArg {
			words = append(words, cur.String())
		}
		cur.Reset()
		inArg = false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' at column %d", i+1)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inArg = true
			i += j + 1
		case ch == '"':
			inArg = true
			closed := false
			for i++; i < len(s); i++ {
				c := s[i]
				if c == '"' {
					closed = true
					break
				}
				if c == '$' || c == '`' {
					return nil, fmt.Errorf("%q inside double quotes at column %d expands", string(c), i+1)
				}
				if c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					c = s[i]
				}
				cur.WriteByte(c)
			}
			if !closed {
				return nil, fmt.Errorf("unclosed \" in %q", short(s))
			}
		case ch == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("a trailing \\ at column %d", i+1)
			}
			i++
			if s[i] != '\n' { // backslash-newline joins lines
				cur.WriteByte(s[i])
				inArg = true
			}
		case strings.IndexByte(";&|<>()$`\n\r", ch) >= 0:
			return nil, fmt.Errorf("%q at column %d", string(ch), i+1)
		case ch == '#' && !inArg:
			return nil, fmt.Errorf("a comment (#) at column %d", i+1)
		default:
			cur.WriteByte(ch)
			inArg = true
		}
	}
	flush()
	return words, nil
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
