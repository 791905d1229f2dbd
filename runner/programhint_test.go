package runner

import (
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/shellwords"
)

// TestRefusedHintSuggestsAnEntryThatWorks: the allow entry the hint for a
// refused program suggests is one that, added to [programs] allow, lets
// exactly the words that would run pass the policy, for every way a
// dialect writes a program: an Axon run_command "…" as the prompt teaches
// it (not the quoted string as one program name), a shell line with quoted
// words, a program with arguments holding spaces or quotes.
func TestRefusedHintSuggestsAnEntryThatWorks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, response string
		run            []string // the words that would run
	}{
		{"axon quoted", "~~~~~act\nrun_command \"gofmt -l .\"\n~~~~~\n", []string{"gofmt", "-l", "."}},
		{"axon block", "~~~~~act\nrun_command\n~~~~~\n~~~~~sh\npython -m pytest -q\n~~~~~\n", []string{"python", "-m", "pytest", "-q"}},
		{"shell line with quotes", "```mcp-request\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shell.exec","arguments":{"command":"grep -rn 'a b' src"}}}` + "\n```\n",
			[]string{"grep", "-rn", "a b", "src"}},
		{"arguments with spaces", "```mcp-request\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"process.run","arguments":{"command":"python","args":["-c","print('hi there')"]}}}` + "\n```\n",
			[]string{"python", "-c", "print('hi there')"}},
		{"json program", "#####--\n" + `{"metadata":{"step_id":"s1","reason":"r"},"type":"operate","program_operations":[{"name":"t","command":"go test ./..."}]}` + "\n--#####\n",
			[]string{"go", "test", "./..."}},
	}
	entryRe := regexp.MustCompile(`allow = \[("(?:[^"\\]|\\.)*")\]`)
	cfg := config.Default()
	cfg.Programs.Enabled = true
	cfg.Programs.Allow = []string{"make"}
	for _, c := range cases {
		items := protocol.Parse([]byte(c.response))
		if len(items) != 1 || items[0].Step == nil || len(items[0].Step.Programs) != 1 {
			t.Fatalf("%s: not one step with one program: %+v", c.name, items)
		}
		pr := items[0].Step.Programs[0]
		if ok, _ := (&Policy{cfg: cfg}).Allowed(pr); ok {
			t.Fatalf("%s: allowed by %q", c.name, cfg.Programs.Allow)
		}
		h := (&Policy{cfg: cfg}).RefusedHint("apply")(pr)
		m := entryRe.FindStringSubmatch(h)
		if m == nil {
			t.Errorf("%s: the hint suggests no allow entry: %s", c.name, h)
			continue
		}
		entry, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		words, err := shellwords.Simple(entry)
		if err != nil || !slices.Equal(words, c.run) {
			t.Errorf("%s: the hint suggests allow = [%s], whose words are %q (%v); the program runs %q", c.name, m[1], words, err, c.run)
		}
		try := cfg
		try.Programs.Allow = []string{entry}
		if ok, why := (&Policy{cfg: try}).Allowed(pr); !ok {
			t.Errorf("%s: the suggested entry %q does not let it run: %s", c.name, entry, why)
		}
	}
}
