package config

import (
	"errors"
	"github.com/autocoder/autocoder/internal/golden"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// loadTrusted reads root's autocoder.toml alone, over the defaults and
// trusted: every key it sets counts.
func loadTrusted(root string) (Config, error) {
	name := filepath.Join(root, FileName)
	data, err := readFile(name, false)
	if err != nil || data == nil {
		return Default(), err
	}
	c, _, err := parse(name, data)
	return c, err
}

// writeConfig makes a repository root holding autocoder.toml with text.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestShippedFileEqualsDefault(t *testing.T) {
	got, err := loadTrusted("..")
	if err != nil {
		t.Fatalf("the shipped autocoder.toml does not load: %v", err)
	}
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Fatalf("the shipped autocoder.toml differs from Default():\n got %+v\nwant %+v", got, want)
	}
}

// TestShippedFileDocumentsEveryKey checks that every key is written out in
// the shipped file with a comment right above it (or above its group).
func TestShippedFileDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", FileName))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	md, err := toml.Decode(string(data), &m)
	if err != nil {
		t.Fatal(err)
	}
	pos := keyPositions(string(data))
	lines := strings.Split(string(data), "\n")
	for _, k := range leafKeys() {
		parts := strings.Split(k, ".")
		if !md.IsDefined(parts...) {
			t.Errorf("%s is not in the shipped autocoder.toml", k)
			continue
		}
		p, ok := pos[k]
		if !ok || p.line < 2 {
			t.Errorf("%s: no place found", k)
			continue
		}
		if above := strings.TrimSpace(lines[p.line-2]); !strings.HasPrefix(above, "#") {
			t.Errorf("%s (line %d) has no comment above it, found %q", k, p.line, above)
		}
	}
}

func TestLoadMissingFileIsDefault(t *testing.T) {
	got, err := loadTrusted(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Default()) {
		t.Fatalf("got %+v, want Default()", got)
	}
}

func TestLoadUnreadable(t *testing.T) {
	root := t.TempDir()
	// A directory where the file should be: reading fails, and that is an
	// error, not a silent default.
	if err := os.Mkdir(filepath.Join(root, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := loadTrusted(root); err == nil || !strings.Contains(err.Error(), FileName) {
		t.Fatalf("want an error naming %s, got %v", FileName, err)
	}
}

func TestLoadKeepsDefaultsOfKeysLeftOut(t *testing.T) {
	root := writeConfig(t, `
[programs]
enabled = true
allow = ["go test", "npm run"]
timeout = "2m"

[paths]
deny = []
`)
	got, err := loadTrusted(root)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Programs.Enabled = true
	want.Programs.Allow = []string{"go test", "npm run"}
	want.Programs.Timeout = 2 * time.Minute
	want.Paths.Deny = []string{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestLoadEveryKey(t *testing.T) {
	root := writeConfig(t, `
apply.branch_prefix = "ai/work/"
[apply]
max_file_bytes = 100
max_response_bytes = 200
[paths]
deny = ["*.secret"]
[programs]
enabled = true
allow = ["make test"]
env = ["CI", "MY_FLAG"]
timeout = "1s"
max_timeout = "2s"
max_output_bytes = 300
[verify]
command = "go build ./..."
timeout = "3s"
[model]
base_url = "http://localhost:11434/v1"
api_key_env = "DEEPSEEK_API_KEY"
model = "qwen2.5-coder"
dialect = "axon"
lang = "en"
max_turns = 5
max_tokens = 9000
max_retries = 0
stream = false
idle_timeout = "4s"
answer_timeout = "7s"
`)
	got, err := loadTrusted(root)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Apply:    Apply{BranchPrefix: "ai/work/", MaxFileBytes: 100, MaxResponseBytes: 200},
		Paths:    Paths{Deny: []string{"*.secret"}},
		Programs: Programs{Enabled: true, Allow: []string{"make test"}, Env: []string{"CI", "MY_FLAG"}, Timeout: time.Second, MaxTimeout: 2 * time.Second, MaxOutputBytes: 300},
		Verify:   Verify{Command: "go build ./...", Timeout: 3 * time.Second},
		Model: Model{BaseURL: "http://localhost:11434/v1", APIKeyEnv: "DEEPSEEK_API_KEY", Name: "qwen2.5-coder", Dialect: "axon",
			Lang: "en", MaxTurns: 5, MaxTokens: 9000, MaxRetries: 0, Stream: false, IdleTimeout: 4 * time.Second, AnswerTimeout: 7 * time.Second},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

// badCases are files Load must refuse, with the key and line the first error
// must name.
var badCases = []struct {
	name string
	text string
	key  string
	line int
}{
	{"unknown top-level key", "[apply]\nbranch_prefix = \"x/\"\n\nfoo = 1\n", "apply.foo", 4},
	{"unknown table", "[program]\nenabled = true\n", "program", 1},
	{"unknown key in table", "[programs]\nenabled = true\nalow = [\"go test\"]\n", "programs.alow", 3},
	{"key in wrong case", "[programs]\nEnabled = true\n", "programs.Enabled", 2},
	{"bool as string", "[programs]\nenabled = \"yes\"\n", "programs.enabled", 2},
	{"duration as number", "[programs]\ntimeout = 60\n", "programs.timeout", 2},
	{"duration without unit", "[verify]\ntimeout = \"60\"\n", "verify.timeout", 2},
	{"negative duration", "[programs]\ntimeout = \"-1s\"\n", "programs.timeout", 2},
	{"timeout above max", "[programs]\n# long\ntimeout = \"1h\"\n", "programs.timeout", 3},
	{"zero size", "[apply]\nmax_file_bytes = 0\n", "apply.max_file_bytes", 2},
	{"size as string", "[apply]\nmax_response_bytes = \"32MiB\"\n", "apply.max_response_bytes", 2},
	{"size as float", "[programs]\nmax_output_bytes = 1.5\n", "programs.max_output_bytes", 2},
	{"prefix without slash", "[apply]\nbranch_prefix = \"autocoder\"\n", "apply.branch_prefix", 2},
	{"prefix with dots", "[apply]\nbranch_prefix = \"a..b/\"\n", "apply.branch_prefix", 2},
	{"prefix with space", "[apply]\nbranch_prefix = \"my work/\"\n", "apply.branch_prefix", 2},
	{"prefix with lock part", "[apply]\nbranch_prefix = \"x.lock/\"\n", "apply.branch_prefix", 2},
	{"prefix empty", "[apply]\nbranch_prefix = \"\"\n", "apply.branch_prefix", 2},
	{"deny as string", "[paths]\ndeny = \"*.pem\"\n", "paths.deny", 2},
	{"deny bad glob", "[paths]\ndeny = [\n  \"*.pem\",\n  \"[abc\",\n]\n", "paths.deny", 2},
	{"deny empty negation", "[paths]\ndeny = [\"!\"]\n", "paths.deny", 2},
	{"deny number item", "[paths]\ndeny = [\"a\", 3]\n", "paths.deny", 2},
	{"allow with operator", "[programs]\nallow = [\"go test; rm -rf /\"]\n", "programs.allow", 2},
	{"allow empty entry", "[programs]\nallow = [\"  \"]\n", "programs.allow", 2},
	{"verify command as list", "[verify]\ncommand = [\"make\"]\n", "verify.command", 2},
	{"dotted unknown key", "programs.enable = true\n", "programs.enable", 1},
	{"table as value", "apply = 1\n", "apply", 1},
	{"syntax error", "[apply]\nbranch_prefix = \"x/\n", "", 2},
	{"duplicate key", "[programs]\nenabled = true\nenabled = false\n", "", 3},
}

func TestLoadRefusesBadFiles(t *testing.T) {
	var goldenText strings.Builder
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			root := writeConfig(t, tc.text)
			got, err := loadTrusted(root)
			if err == nil {
				t.Fatalf("Load accepted:\n%s", tc.text)
			}
			if !reflect.DeepEqual(got, Config{}) {
				t.Errorf("a failed Load returned a config: %+v", got)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not a *config.Error", err, err)
			}
			if e.Key != tc.key || e.Line != tc.line {
				t.Errorf("error names key %q line %d, want key %q line %d: %v", e.Key, e.Line, tc.key, tc.line, e)
			}
			if e.Hint() == "" {
				t.Errorf("no hint: %v", e)
			}
			if lines := strings.Split(strings.TrimSpace(tc.text), "\n"); e.Line > 0 && e.Line <= len(lines) &&
				len(strings.TrimSpace(lines[e.Line-1])) > 12 && strings.Contains(e.Error(), strings.TrimSpace(lines[e.Line-1])) {
				t.Errorf("the error quotes line %d of the file: %v", e.Line, e)
			}
			if !strings.HasPrefix(e.Error(), filepath.Join(root, FileName)) {
				t.Errorf("error does not start with the file name: %v", e)
			}
			goldenText.WriteString("## " + tc.name + "\n")
			for _, e := range allErrors(err) {
				goldenText.WriteString(strings.ReplaceAll(e.Error(), root+string(filepath.Separator), "") + "\n")
				goldenText.WriteString("hint: " + e.Hint() + "\n")
			}
			goldenText.WriteString("\n")
		})
	}
	golden.Check(t, filepath.Join("testdata", "errors.golden"), []byte(goldenText.String()))
}

func TestLoadReportsEveryProblem(t *testing.T) {
	root := writeConfig(t, "[apply]\nbranch_prefx = \"a/\"\n[programs]\nenabld = true\ntimeout = 5\n")
	_, err := loadTrusted(root)
	var keys []string
	for _, e := range allErrors(err) {
		keys = append(keys, e.Key)
	}
	// Unknown keys are found before values are read, and both are reported.
	want := []string{"apply.branch_prefx", "programs.enabld", "programs.timeout"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("got errors for %q, want %q (%v)", keys, want, err)
	}
}

func allErrors(err error) []*Error {
	var out []*Error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, allErrors(e)...)
		}
		return out
	}
	var e *Error
	if errors.As(err, &e) {
		out = append(out, e)
	}
	return out
}

func TestUnknownKeyHintSuggestsTheKnownKey(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"programs.alow", "programs.allow"},
		{"programs.Enabled", "programs.enabled"},
		{"apply.max_output_bytes", "programs.max_output_bytes"},
		{"verify.cmd", ""},
	} {
		if got := closest(tc.key, knownKeys); got != tc.want {
			t.Errorf("closest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestKeyPositions(t *testing.T) {
	text := `# a comment with key = value
top = 1
[a]
s = """
fake = 1
"""
arr = [
  "x = 1",
  { inline = 2 },
]
"quoted key" = 'lit' # trailing = comment
b.c = 3
[[d.e]]
  f = 'a # not a comment'
g = 4
`
	want := map[string]position{
		"top":            {2, 1},
		"a":              {3, 1},
		"a.s":            {4, 1},
		"a.arr":          {7, 1},
		`a."quoted key"`: {11, 1},
		"a.b":            {12, 1},
		"a.b.c":          {12, 1},
		"d.e":            {13, 1},
		"d.e.f":          {14, 3},
		"d.e.g":          {15, 1},
	}
	got := keyPositions(text)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	// The scanner must agree with the decoder about which keys exist.
	var m map[string]any
	md, err := toml.Decode(text, &m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range md.Keys() {
		if _, ok := got[k.String()]; !ok && !strings.HasPrefix(k.String(), "a.arr") {
			t.Errorf("decoder key %s not placed", k)
		}
	}
}

func TestProgramTimeout(t *testing.T) {
	c := Default()
	for _, tc := range []struct{ asked, want time.Duration }{
		{0, 60 * time.Second},
		{-time.Second, 60 * time.Second},
		{5 * time.Second, 5 * time.Second},
		{time.Hour, 10 * time.Minute},
	} {
		if got := c.ProgramTimeout(tc.asked); got != tc.want {
			t.Errorf("ProgramTimeout(%v) = %v, want %v", tc.asked, got, tc.want)
		}
	}
}

// FuzzLoad: whatever the text, parse does not panic, and a config it accepts
// satisfies every rule the validation states.
func FuzzLoad(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", FileName)); err == nil {
		f.Add(string(data))
	}
	for _, tc := range badCases {
		f.Add(tc.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, _, err := parse(FileName, []byte(text))
		if err != nil {
			for _, e := range allErrors(err) {
				if e.Msg == "" || e.Hint() == "" {
					t.Fatalf("error without message or hint: %#v", e)
				}
			}
			return
		}
		if checkBranchPrefix(c.Apply.BranchPrefix) != "" || c.Apply.MaxFileBytes <= 0 ||
			c.Apply.MaxResponseBytes <= 0 || c.Programs.MaxOutputBytes <= 0 ||
			c.Programs.Timeout <= 0 || c.Programs.Timeout > c.Programs.MaxTimeout || c.Verify.Timeout <= 0 {
			t.Fatalf("accepted an invalid config: %+v", c)
		}
		for _, p := range c.Paths.Deny {
			if _, err := compileDeny(p); err != nil {
				t.Fatalf("accepted deny pattern %q: %v", p, err)
			}
		}
	})
}

// [model] holds the name of the variable with the key, never the key: a key
// written there is refused, as are a dialect or language with no prompt.
func TestModelTable(t *testing.T) {
	for _, tc := range []struct{ text, key string }{
		{"[model]\napi_key_env = \"sk-proj-abc123\"\n", "model.api_key_env"},
		{"[model]\ndialect = \"json\"\n", "model.dialect"},
		{"[model]\nlang = \"fr\"\n", "model.lang"},
		{"[model]\nmax_turns = 0\n", "model.max_turns"},
		{"[model]\nmax_retries = -1\n", "model.max_retries"},
	} {
		_, err := loadTrusted(writeConfig(t, tc.text))
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line == 0 || ce.Hint() == "" {
			t.Errorf("%q: %v", tc.text, err)
		}
	}
}

// [model] never holds the API key itself, only the name of the variable
// that does: a key-looking api_key_env, a key under a key of its own
// (api_key, token, …) or inside base_url is refused, each with a hint that
// names api_key_env; real variable names pass.
// A line that would hold a key and cannot be read (the quotes forgotten,
// a string left open, a list) is named by its line, never quoted: the
// error reaches a terminal and logs, and the key must not.
func TestUnreadableKeyLinesAreNotQuoted(t *testing.T) {
	for _, tc := range []struct{ text, secret string }{
		{"[model]\napi_key_env = sk-proj-abcdef1234567890SECRET\n", "SECRET"},
		{"[model]\napi_key_env = \"sk-proj-abcdef1234567890SECRET\n", "SECRET"},
		{"[model]\napi_key_env = [\"sk-SECRET\"]\n", "SECRET"},
		{"[model]\napi_key = sk-SECRET\n", "SECRET"},
		{"[model]\n\"api-token\" = SECRET-abc\n", "SECRET"},
		{"[model]\nbase_url = \"https://ho st/%zz?key=SECRET\"\n", "SECRET"},
	} {
		_, err := loadTrusted(writeConfig(t, tc.text))
		var ce *Error
		if !errors.As(err, &ce) || ce.Line != 2 {
			t.Errorf("%q: %v, want an error at line 2", tc.text, err)
		}
		if err != nil && strings.Contains(err.Error(), tc.secret) {
			t.Errorf("%q: the error repeats the key: %v", tc.text, err)
		}
	}
}

func TestModelTableRefusesTheKeyItself(t *testing.T) {
	for _, tc := range []struct{ text, key string }{
		{"[model]\napi_key_env = \"sk-proj-abc123\"\n", "model.api_key_env"},
		{"[model]\napi_key_env = \"gsk_4f9a8B7c6D5e4F3g2H1i0J9k8L7m\"\n", "model.api_key_env"},
		{"[model]\napi_key_env = \"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY\"\n", "model.api_key_env"},
		{"[model]\napi_key_env = \"0123456789abcdef0123456789abcdef\"\n", "model.api_key_env"},
		{"[model]\napi_key_env = \"Bearer abc\"\n", "model.api_key_env"},
		{"[model]\napi_key = \"sk-abc\"\n", "model.api_key"},
		{"[model]\nkey = \"abc\"\n", "model.key"},
		{"[model]\ntoken = \"abc\"\n", "model.token"},
		{"[model]\nopenai_api_key = \"abc\"\n", "model.openai_api_key"},
		{"[model]\nbase_url = \"https://me:sk-abc@api.example.com/v1\"\n", "model.base_url"},
		{"[model]\nbase_url = \"https://api.example.com/v1?api_key=abc\"\n", "model.base_url"},
	} {
		_, err := loadTrusted(writeConfig(t, tc.text))
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line == 0 || !strings.Contains(ce.Hint(), "api_key_env") || !strings.Contains(ce.Hint(), "never") {
			t.Errorf("%q: %v (hint %q)", tc.text, err, hintOf(err))
		}
		if secret := tc.text[strings.IndexByte(tc.text, '"')+1 : strings.LastIndexByte(tc.text, '"')]; err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%q: the error repeats the key: %v", tc.text, err)
		}
	}
	// A shell expansion is the name written as a shell would read it.
	_, err := loadTrusted(writeConfig(t, "[model]\napi_key_env = \"${MY_KEY_VAR}\"\n"))
	if !strings.Contains(hintOf(err), `api_key_env = "MY_KEY_VAR"`) {
		t.Errorf("${MY_KEY_VAR}: %v (hint %q)", err, hintOf(err))
	}
	for _, name := range []string{"OPENAI_API_KEY", "DEEPSEEK_API_KEY", "my_key", "DASHSCOPE_API_KEY2"} {
		c, err := loadTrusted(writeConfig(t, "[model]\napi_key_env = \""+name+"\"\nbase_url = \"http://localhost:11434/v1\"\n"))
		if err != nil || c.Model.APIKeyEnv != name {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func hintOf(err error) string {
	var ce *Error
	if errors.As(err, &ce) {
		return ce.Hint()
	}
	return ""
}
