package prompt

// Functions only the tests use: the binary does not need them (deadcode),
// so they live beside the tests that do.

import (
	"io/fs"
	"path"
	"sort"
	"strings"
)

// StepDialect is the name the dialect readers give a dialect
// (step.Step.Dialect) for a name of Dialects.
func StepDialect(dialect string) string {
	if dialect == "autocoder" {
		return "autocoder-json"
	}
	return dialect
}

// Example is one example a prompt shows: a model's answer.
type Example struct {
	Name string // the file name without .md
	Text string
}

// examples are the examples of dialect, by name.
func examples(dialect string) ([]Example, error) {
	dir := "examples/" + dialect
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return nil, &UnknownError{What: "dialect", Name: dialect}
	}
	var out []Example
	for _, e := range entries {
		b, err := files.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Example{Name: strings.TrimSuffix(e.Name(), ".md"), Text: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
