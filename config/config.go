// Package config reads autocoder.toml, the file at the repository root that
// sets autocoder's limits and safety policy, and answers the questions the
// engine asks of its values: may this path be written (Denied), how long may
// a program run (ProgramTimeout). Whether a program may run is judged by
// the program policy in package runner, over these values.
//
// Start with Config and Default (every key and why it defaults the way it
// does), then Load in trust.go: the defaults, the user's own file
// (config.toml in the user's config folder), then the repository's
// autocoder.toml, whose keys count by their Kind (kinds.go) unless the user
// trusted that exact content (autocoder trust). load.go reads and validates
// one file, with errors that name the key and its line (never quoting it)
// and what to write instead. deny.go holds the path patterns and
// programs.go the variables a step may never set for its programs. The
// repository ships autocoder.toml at its root, which documents every key
// and equals Default.
package config

import "time"

// FileName is the name of the configuration file at the repository root.
const FileName = "autocoder.toml"

// Config is the whole configuration. The zero value is not useful: start from
// Default (Load does), which is what a repository without autocoder.toml gets.
type Config struct {
	Apply    Apply    // [apply]: how steps become commits
	Paths    Paths    // [paths]: what no step may write
	Programs Programs // [programs]: whether and which programs a step may run
	Verify   Verify   // [verify]: a check run before each step's commit
	Model    Model    // [model]: the chat API autocoder run talks to
}

// Apply is the [apply] table.
type Apply struct {
	// BranchPrefix (branch_prefix) starts the name of every work branch
	// autocoder creates. It ends with "/" so that work branches form their own
	// folder of refs, and must be a valid git ref part.
	BranchPrefix string
	// MaxFileBytes (max_file_bytes) is the size above which a file is never
	// read for editing or written: a step that touches a larger file fails.
	MaxFileBytes int64
	// MaxResponseBytes (max_response_bytes) is the largest response text
	// autocoder reads; a larger one is refused before parsing, and so is a
	// model's answer in `autocoder run` once it passes this size.
	MaxResponseBytes int64
}

// Paths is the [paths] table.
type Paths struct {
	// Deny (deny) lists gitignore-like patterns of paths, relative to the
	// repository root, that no step may create, change, move or delete. See
	// Config.Denied for the pattern rules. A list in autocoder.toml replaces
	// the default list; it does not add to it.
	Deny []string
}

// Programs is the [programs] table.
type Programs struct {
	// Enabled (enabled) turns programs on. Off by default: a response cannot
	// run anything unless the user asks for it here or with the command-line
	// flag that allows every program.
	Enabled bool
	// Allow (allow) lists command prefixes, matched on whole words
	// ("go test" allows "go test ./..." but not "go tool"), that may run when
	// Enabled is true.
	Allow []string
	// Env (env) lists the environment variables a step may set for its
	// programs. Whatever else a step sets is refused, and so are the
	// variables that decide what runs (PATH, LD_*, DYLD_*, GIT_*, GO*, ...;
	// see ForbiddenEnv) even when listed here.
	Env []string
	// Timeout (timeout) is how long a program may run when its step asks for
	// no timeout of its own.
	Timeout time.Duration
	// MaxTimeout (max_timeout) caps the timeout a step may ask for, so that a
	// response cannot hold the repository for an hour.
	MaxTimeout time.Duration
	// MaxOutputBytes (max_output_bytes) caps what is kept of each of a
	// program's output streams; the rest is read and counted, not kept.
	MaxOutputBytes int
}

// Model is the [model] table: the defaults of `autocoder run`, which its
// flags override. It never holds the API key itself, only the name of the
// environment variable that does, so the file can be committed.
type Model struct {
	// BaseURL (base_url) is the OpenAI-compatible API's base URL. Empty: the
	// OPENAI_BASE_URL variable, else https://api.openai.com/v1.
	BaseURL string
	// APIKeyEnv (api_key_env) names the environment variable that holds the
	// API key (DEEPSEEK_API_KEY, say). A local server may need none.
	APIKeyEnv string
	// Name (model) is the model to ask, e.g. "gpt-4o" or "qwen2.5-coder".
	// Empty: --model must say.
	Name string
	// Dialect (dialect) is the dialect the model is taught: autocoder, mcp
	// or axon.
	Dialect string
	// Lang (lang) is the language of the system prompt: zh or en. Empty:
	// the user's locale decides (prompt.LocaleLang).
	Lang string
	// MaxTurns (max_turns) stops a run after this many answers.
	MaxTurns int64
	// MaxTokens (max_tokens) stops a run once it has used this many tokens,
	// prompt and answers together, as the server counts them.
	MaxTokens int64
	// MaxRetries (max_retries) is how often a request that met a 429, a 5xx
	// or a lost connection is sent again, with a growing pause.
	MaxRetries int64
	// Stream (stream) asks for answers as a stream, shown as they arrive.
	Stream bool
	// IdleTimeout (idle_timeout) is how long the API may send nothing,
	// before an answer starts or in its middle, before the request is given
	// up (and retried, as a lost connection is).
	IdleTimeout time.Duration
	// AnswerTimeout (answer_timeout) is the longest one answer may take,
	// from the request to its last byte, however steadily the server sends:
	// a server that drips a byte a second keeps IdleTimeout from ever
	// ending the run. Past it the run stops, with nothing of that answer
	// applied.
	AnswerTimeout time.Duration
}

// Verify is the [verify] table.
type Verify struct {
	// Command (command) is a shell command run in the repository root after a
	// step's files are written and before its commit; if it fails the step is
	// rolled back and its output becomes the feedback. Empty: no verify.
	// It comes from the user, not the response, so it is not subject to the
	// [programs] allow-list.
	Command string
	// Timeout (timeout) is how long Command may run.
	Timeout time.Duration
}

// The sizes of the defaults, named so that the shipped file and the tests can
// say where each number comes from.
const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// The defaults other packages fall back on when they are given zero (the
// engine, the reads, the model client, the runner): named here, once, so
// that each value of Default is written in one place
// (TestDefaultsLiveInConfig).
const (
	DefaultBranchPrefix     = "autocoder/"
	DefaultMaxFileBytes     = 10 * MiB
	DefaultMaxResponseBytes = 32 * MiB
	// Long enough for a reasoning model that streams nothing while it
	// thinks, or a local model reading a long prompt on a CPU.
	DefaultIdleTimeout = 10 * time.Minute
	// As long as the idle timeout, so that a server that drips a byte at a
	// time, each resetting the idle timeout, ends too.
	DefaultAnswerTimeout = 10 * time.Minute
	// The variable of the model API's key: runner withdraws it from the
	// environment of every program whichever variable the config names.
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
	// A program's timeout and captured output when nothing says otherwise.
	DefaultProgramTimeout = 60 * time.Second
	DefaultMaxOutputBytes = 1 * MiB
)

// Default returns the configuration of a repository without autocoder.toml.
// Each call returns fresh slices, so callers may change the result.
func Default() Config {
	return Config{
		Apply: Apply{
			BranchPrefix:     DefaultBranchPrefix,
			MaxFileBytes:     DefaultMaxFileBytes,
			MaxResponseBytes: DefaultMaxResponseBytes,
		},
		Paths: Paths{
			// Secrets a model has no business writing, and the policy file
			// itself: a response that could rewrite autocoder.toml could turn
			// programs on for the next run.
			Deny: []string{
				"/autocoder.toml",
				".env",
				".env.*",
				"!.env.example",
				"*.pem",
				"*.key",
				"id_rsa",
				"id_ed25519",
				".ssh/",
			},
		},
		Programs: Programs{
			Enabled:        false,
			Allow:          []string{},
			Env:            append([]string(nil), DefaultProgramEnv...),
			Timeout:        DefaultProgramTimeout,
			MaxTimeout:     10 * time.Minute,
			MaxOutputBytes: DefaultMaxOutputBytes,
		},
		Verify: Verify{
			Command: "",
			Timeout: 5 * time.Minute,
		},
		Model: Model{
			BaseURL:       "",
			APIKeyEnv:     DefaultAPIKeyEnv,
			Name:          "",
			Dialect:       "autocoder",
			Lang:          "",
			MaxTurns:      30,
			MaxTokens:     1000000,
			MaxRetries:    3,
			Stream:        true,
			IdleTimeout:   DefaultIdleTimeout,
			AnswerTimeout: DefaultAnswerTimeout,
		},
	}
}

// ProgramTimeout returns the timeout a program runs with when its step asks
// for requested (0: not asked): the configured Timeout when not asked, never
// more than MaxTimeout.
func (c Config) ProgramTimeout(requested time.Duration) time.Duration {
	t := requested
	if t <= 0 {
		t = c.Programs.Timeout
	}
	if t > c.Programs.MaxTimeout {
		t = c.Programs.MaxTimeout
	}
	return t
}
