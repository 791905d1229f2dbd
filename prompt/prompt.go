// Package prompt holds the system prompts that teach a model each dialect
// exactly as autocoder reads it and answers it: `autocoder prompt DIALECT`
// prints one, and `autocoder run` sends one as the system message.
//
// The prompts are ours, not the seeds' text (those are in ../shared/seeds).
// Each lives in texts/<dialect>.<lang>.md; its examples live apart, in
// examples/<dialect>/<name>.md, and a prompt includes one with a line
// {{example "name"}}. Keeping the examples in files of their own lets the
// tests feed every one of them through the real reader (protocol.Parse):
// a prompt that taught a block autocoder needs to repair, or cannot read,
// fails the build instead of misleading a model.
//
// Start with Text; Examples is what the tests read.
package prompt

import (
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/autocoder/autocoder/step"
)

//go:embed texts examples
var files embed.FS

// Dialects are the dialect names `autocoder prompt` accepts, in the order
// the help lists them: the three seed dialects, then the edit formats
// models write on their own (FORMATS.md), which read files and run
// programs with Axon's acts.
var Dialects = []string{"autocoder", "mcp", "axon", "apply_patch", "search-replace", "udiff"}

// Langs are the languages each prompt is written in. Neither is the
// default: LocaleLang picks one from the user's locale.
var Langs = []string{"zh", "en"}

// LocaleLang is the prompt language of the user's locale, read with getenv
// (os.Getenv): the first of LC_ALL, LC_MESSAGES and LANG that is set and not
// empty names the locale, as POSIX orders them (LC_ALL=C wins over a Chinese
// LANG). A Chinese locale (zh, zh_CN.UTF-8, zh_TW.Big5, zh_HK@...) gives
// Chinese; anything else, unset, C and POSIX included, gives English: a
// prompt the user cannot read helps no one, and English is what every model
// reads best.
func LocaleLang(getenv func(string) string) string {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		locale := getenv(v)
		if locale == "" {
			continue
		}
		// language[_territory][.codeset][@modifier]
		lang, _, _ := strings.Cut(locale, "_")
		lang, _, _ = strings.Cut(lang, ".")
		lang, _, _ = strings.Cut(lang, "@")
		if strings.EqualFold(lang, "zh") {
			return "zh"
		}
		return "en"
	}
	return "en"
}

// UnknownError is a dialect or language there is no prompt for.
type UnknownError struct{ What, Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("no prompt for the %s %q", e.What, e.Name)
}

// Class is a usage error: the command line names no prompt.
func (e *UnknownError) Class() step.Class { return step.ClassUsage }

// Hint lists the names there are.
func (e *UnknownError) Hint() string {
	if e.What == "language" {
		return "choose --lang " + strings.Join(Langs, " or ")
	}
	return "choose one of: " + strings.Join(Dialects, ", ")
}

// Text is the system prompt for dialect in lang (one of Langs; the
// commands choose it with LocaleLang when the user names none), with its
// examples in place.
func Text(dialect, lang string) (string, error) {
	if !contains(Dialects, dialect) {
		return "", &UnknownError{What: "dialect", Name: dialect}
	}
	if !contains(Langs, lang) {
		return "", &UnknownError{What: "language", Name: lang}
	}
	src, err := files.ReadFile("texts/" + dialect + "." + lang + ".md")
	if err != nil {
		return "", err // every pair is embedded: TestEveryPrompt holds it
	}
	t, err := template.New(dialect).Delims("{{", "}}").Funcs(template.FuncMap{
		"example": func(name string) (string, error) {
			b, err := files.ReadFile("examples/" + dialect + "/" + name + ".md")
			if err != nil {
				return "", fmt.Errorf("prompt %s: no example %q", dialect, name)
			}
			return strings.TrimRight(string(b), "\n"), nil
		},
	}).Parse(string(src))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Tools is the system prompt of a run whose edits are function calls
// (autocoder run --tools): what the functions do and how a call is
// answered. It is not a dialect: the model writes no block.
func Tools(lang string) (string, error) {
	if !contains(Langs, lang) {
		return "", &UnknownError{What: "language", Name: lang}
	}
	b, err := files.ReadFile("texts/tools." + lang + ".md")
	return string(b), err
}
