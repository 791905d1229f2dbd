package prompt

import (
	"errors"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/protocol/acjson"
	"github.com/autocoder/autocoder/protocol/axon"
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/step"
)

// TestExamplesRead feeds every example of every prompt through the real
// reader: each must give steps of its own dialect only, with no error and
// no repair. A prompt that taught a block autocoder must repair (a comment,
// a """ string, a missing comma) would teach the model to write it.
func TestExamplesRead(t *testing.T) {
	for _, d := range Dialects {
		exs, err := examples(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(exs) < 3 {
			t.Errorf("%s: %d examples; a prompt teaches by several", d, len(exs))
		}
		for _, ex := range exs {
			items := protocol.Parse([]byte(ex.Text))
			if len(items) == 0 {
				t.Errorf("%s/%s: no block read", d, ex.Name)
			}
			for _, it := range items {
				if it.Err != nil {
					t.Errorf("%s/%s: %v", d, ex.Name, it.Err)
					continue
				}
				want := StepDialect(d)
				if editFormat[d] && axonHelpers[ex.Name] {
					want = axon.Dialect // an edit format reads and runs with Axon's acts
				}
				if it.Step.Dialect != want {
					t.Errorf("%s/%s: read as %s", d, ex.Name, it.Step.Dialect)
				}
				for _, r := range it.Step.Repairs {
					t.Errorf("%s/%s: line %d: needed a repair: %s", d, ex.Name, r.Pos.Line, r.What)
				}
			}
		}
	}
}

// TestEveryOperationTaught: every operation the reader knows is shown in an
// example (read by the reader, not found as a word), and every prompt
// names it.
func TestEveryOperationTaught(t *testing.T) {
	known := map[string][]string{
		"autocoder": append(acjson.ActionTypes(), "operate", "finish", "check_program"),
		"mcp":       append(mcp.ToolNames(), "tools/list"),
		"axon":      axon.Acts(),
	}
	for _, d := range Dialects {
		exs, _ := examples(d)
		if markers, ok := formatMarkers[d]; ok {
			// An edit format has no operation names: its markers are
			// what a model must write, each in an example (the last
			// ones named only) and in both prompts.
			all := ""
			for _, ex := range exs {
				all += ex.Text
			}
			for i, m := range markers {
				if i < len(markers)-namedOnly[d] && !strings.Contains(all, m) {
					t.Errorf("%s: no example shows %s", d, m)
				}
				for _, lang := range Langs {
					if text, _ := Text(d, lang); !strings.Contains(text, m) {
						t.Errorf("%s.%s: the prompt never names %s", d, lang, m)
					}
				}
			}
			continue
		}
		shown := map[string]bool{}
		for _, ex := range exs {
			for _, it := range protocol.Parse([]byte(ex.Text)) {
				if it.Step == nil {
					continue
				}
				switch src := it.Step.Source.(type) {
				case *acjson.Source:
					shown[src.Type] = true
					for _, a := range src.Actions {
						shown[a] = true
					}
				case *mcp.Request:
					shown[src.Tool] = true
					shown[src.Method] = true
				case axon.Source:
					for _, a := range src.Acts {
						shown[a.Name] = true
					}
				}
			}
			// git_add and git_init have nothing to do, and the reader
			// says so with a note: the prompts name them and show no
			// example of them.
			shown["git_add"], shown["git_init"] = true, true
		}
		for _, op := range known[d] {
			if !shown[op] {
				t.Errorf("%s: no example shows %s", d, op)
			}
			for _, lang := range Langs {
				text, _ := Text(d, lang)
				if !strings.Contains(text, op) {
					t.Errorf("%s.%s: the prompt never names %s", d, lang, op)
				}
			}
		}
	}
}

// editFormat are the prompts of edit formats (FORMATS.md): they teach
// their format for edits and Axon's acts for reading and running
// (axonHelpers, the examples of those acts).
var (
	editFormat  = map[string]bool{"apply_patch": true, "search-replace": true, "udiff": true}
	axonHelpers = map[string]bool{"read": true, "run": true}
	// formatMarkers are what each edit format's model writes; the last
	// namedOnly[d] of them are named by the prompt with no example.
	formatMarkers = map[string][]string{
		"apply_patch": {"*** Begin Patch", "*** End Patch", "*** Add File: ", "*** Update File: ", "*** Delete File: ",
			"*** Move to: ", "@@ ", "read_file", "run_command", "*** End of File"},
		"search-replace": {"<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "read_file", "run_command"},
		"udiff":          {"```diff", "--- a/", "+++ b/", "--- /dev/null", "@@ ", "read_file", "run_command", "+++ /dev/null"},
	}
	namedOnly = map[string]int{"apply_patch": 1, "udiff": 1}
)

// TestEveryPrompt: each dialect has a prompt in each language, every example
// of the dialect is in it, and nothing is left of the template.
func TestEveryPrompt(t *testing.T) {
	for _, d := range Dialects {
		exs, _ := examples(d)
		for _, lang := range Langs {
			text, err := Text(d, lang)
			if err != nil {
				t.Fatalf("%s.%s: %v", d, lang, err)
			}
			if strings.Contains(text, "{{") {
				t.Errorf("%s.%s: a template action is left in the text", d, lang)
			}
			for _, ex := range exs {
				if !strings.Contains(text, strings.TrimRight(ex.Text, "\n")) {
					t.Errorf("%s.%s: the example %s is not shown", d, lang, ex.Name)
				}
			}
		}
	}
}

// TestLocaleLang: the prompt's language follows the user's locale, read in
// POSIX's order (LC_ALL, then LC_MESSAGES, then LANG; an empty value is
// unset): Chinese for a Chinese locale, English for everything else.
func TestLocaleLang(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, "zh"},
		{map[string]string{"LANG": "zh_TW"}, "zh"},
		{map[string]string{"LANG": "zh"}, "zh"},
		{map[string]string{"LANG": "zh_HK.Big5HKSCS"}, "zh"},
		{map[string]string{"LANG": "zh.GB18030"}, "zh"},
		{map[string]string{"LANG": "zh@pinyin"}, "zh"},
		{map[string]string{"LANG": "en_US.UTF-8"}, "en"},
		{map[string]string{"LANG": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LANG": "C"}, "en"},
		{map[string]string{"LANG": "POSIX"}, "en"},
		{map[string]string{"LANG": "C.UTF-8"}, "en"},
		{map[string]string{"LANG": "zu_ZA"}, "en"}, // not zh, though it starts with z
		{map[string]string{"LANG": "zhx"}, "en"},
		// LC_ALL wins over everything, LC_MESSAGES over LANG.
		{map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"},
		{map[string]string{"LC_ALL": "zh_CN.UTF-8", "LC_MESSAGES": "en_US.UTF-8", "LANG": "en_US.UTF-8"}, "zh"},
		{map[string]string{"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"},
		{map[string]string{"LC_MESSAGES": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"},
		// Empty is unset: the next variable decides.
		{map[string]string{"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}, "zh"},
		// Other categories do not choose a language of messages.
		{map[string]string{"LC_CTYPE": "zh_CN.UTF-8"}, "en"},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := LocaleLang(getenv); got != tc.want {
			t.Errorf("LocaleLang(%v) = %s, want %s", tc.env, got, tc.want)
		}
	}
}

func TestUnknown(t *testing.T) {
	var ue *UnknownError
	if _, err := Text("json", ""); !errors.As(err, &ue) || ue.What != "dialect" || !strings.Contains(ue.Hint(), "autocoder, mcp, axon") {
		t.Errorf("unknown dialect: %v", err)
	}
	if _, err := Text("mcp", "fr"); !errors.As(err, &ue) || ue.What != "language" {
		t.Errorf("unknown language: %v", err)
	}
	var _ step.Hinted = ue
}

// TestEveryAnswerTaught: each prompt, in each language, names every status
// and field the executor's answer in its dialect can hold, so that a model
// reading the answer knows what each means (protocol's
// TestFeedbackTellsEveryOutcomeApart holds the answers).
func TestEveryAnswerTaught(t *testing.T) {
	var programs []string
	for _, s := range []step.ProgramStatus{step.ProgramSuccess, step.ProgramFailure, step.ProgramTimeout, step.ProgramRefused,
		step.ProgramRunning, step.ProgramTerminated, step.ProgramNotAttempted} {
		programs = append(programs, string(s))
	}
	words := map[string][]string{
		"autocoder": append([]string{"`success`", "`failure`", "`refused`", "`rolled_back`", "`not_attempted`",
			"program_runtime_feedback", "file_actions", "program_execs", "replaces", "already_applied"}, quoted(programs)...),
		"mcp": {"INVALID_INPUT", "NOT_FOUND", "FORBIDDEN", "POLICY_BLOCKED", "CONFLICT", "NOT_EXECUTED", "INTERNAL_ERROR",
			"data.notAttempted", "data.rolledBack", "`status:`", "`timeout`", "`running`", "`terminated`"},
		"axon": {"`applied`", "`unchanged`", "`read`", "`failed`", "`skipped`", "`not attempted`",
			"`rolled back, not applied`", "`refused by the safety policy`"},
		"apply_patch": {"`Success. Updated the following files:`", "`Success. No file changed: the patch is already applied.`",
			"`Invalid patch (line N)`", "`No files were modified by this patch`", "`Not applied`", "`Rolled back`"},
		"search-replace": {"`Applied edit to PATH.`", "SEARCH/REPLACE"},
		"udiff": {"`Applied patch to 'PATH' cleanly.`", "`The diff is already applied`", "`error: patch failed`",
			"`Nothing of this diff was applied`", "`error: corrupt patch at line N`"},
	}
	for _, d := range Dialects {
		for _, lang := range Langs {
			text, _ := Text(d, lang)
			for _, w := range words[d] {
				if !strings.Contains(text, w) {
					t.Errorf("%s.%s does not teach %s", d, lang, w)
				}
			}
		}
	}
}

func quoted(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "`" + w + "`"
	}
	return out
}

// TestEveryPromptTeachesTheLoop: each prompt has the sections issue 12
// asks for (how the executor works, the block format, the operations, how
// an edit quotes the old text, examples, the executor's answer, how to
// finish), the Chinese one the same headings as the English one, and an
// example with several blocks in one answer.
func TestEveryPromptTeachesTheLoop(t *testing.T) {
	sections := map[string][]string{
		"autocoder": {"# How the executor works", "# The block", "# File operations", "## How an edit must quote the old text",
			"# Programs", "# Examples", "# The executor's answer", "# Finishing"},
		"mcp": {"# How the executor works", "# The block", "# The tools", "## Changing part of a file",
			"# Examples", "# The executor's answer", "# Finishing"},
		"axon": {"# How the executor works", "# The act block", "# The acts", "## How replace must quote the old text",
			"# Examples", "# The executor's report", "# Finishing"},
		"apply_patch": {"# How the executor works", "# The patch", "# Examples", "# The executor's answer",
			"# Reading files and running programs", "# Finishing"},
		"search-replace": {"# How the executor works", "# The block", "# Examples", "# The executor's answer",
			"# Reading files and running programs", "# Finishing"},
		"udiff": {"# How the executor works", "# The diff", "# Examples", "# The executor's answer",
			"# Reading files and running programs", "# Finishing"},
	}
	// Lines starting "# " or "## ": the sections, and any such line of an
	// example, which both languages show alike.
	headings := func(text string) []string {
		var out []string
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "## ") {
				out = append(out, l)
			}
		}
		return out
	}
	for _, d := range Dialects {
		en, _ := Text(d, "en")
		zh, _ := Text(d, "zh")
		got := headings(en)
		for _, s := range sections[d] {
			if !strings.Contains(strings.Join(got, "\n")+"\n", s+"\n") {
				t.Errorf("%s.en has no section %q; its headings: %q", d, s, got)
			}
		}
		level := func(hs []string) (out []int) {
			for _, h := range hs {
				out = append(out, len(h)-len(strings.TrimLeft(h, "#")))
			}
			return out
		}
		if a, b := level(got), level(headings(zh)); !equalInts(a, b) {
			t.Errorf("%s: the zh headings %q do not match the en ones %q", d, headings(zh), got)
		}
		exs, _ := examples(d)
		several := false
		for _, ex := range exs {
			items := protocol.Parse([]byte(ex.Text))
			several = several || len(items) >= 2
			// A patch or a diff holds several files in one block.
			several = several || editFormat[d] && len(items) == 1 && items[0].Step != nil && len(items[0].Step.Ops) >= 2
		}
		if !several {
			t.Errorf("%s: no example sends several blocks in one answer", d)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestToolsPrompt: the prompt of run --tools names every function the run
// offers, in both languages, and the sections of the others.
func TestToolsPrompt(t *testing.T) {
	for _, lang := range Langs {
		text, err := Tools(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"`read_file`", "`apply_patch`", "`str_replace_based_edit_tool`", "`run_program`", "`finish`",
			"`view`", "`create`", "`str_replace`", "`insert`", "`undo_edit`", "*** Begin Patch"} {
			if !strings.Contains(text, w) {
				t.Errorf("tools.%s does not name %s", lang, w)
			}
		}
	}
	if _, err := Tools("fr"); err == nil {
		t.Error("a prompt in a language there is none of")
	}
}
