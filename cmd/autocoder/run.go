package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	lib "github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/agent"
	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/prompt"
	"github.com/autocoder/autocoder/runner"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
)

func runCommand() *cli.Command {
	def := config.Default().Model
	return &cli.Command{
		Name:      "run",
		Usage:     "drive a model through the loop: prompt, answer, apply, feedback, until it finishes",
		ArgsUsage: "TASK|-",
		CustomHelpTemplate: examples(
			"autocoder run --model gpt-4o \"add a --verbose flag to main.go\"",
			"OPENAI_BASE_URL=http://localhost:11434/v1 autocoder run --model qwen2.5-coder - < task.md",
			"autocoder run --worktree --model gpt-4o \"fix the tests\"   # in a worktree and branch of its own",
		),
		Description: "Talks to an OpenAI-compatible chat API: OPENAI_BASE_URL (or [model] base_url), the key in\n" +
			"OPENAI_API_KEY (or the variable [model] api_key_env names), --model (or [model] model).\n" +
			"Each failed or refused step's error and hint is printed as its turn ends; the model is told too.\n\n" +
			runExitCodes,
		Flags: []cli.Flag{
			// The defaults shown are those that apply when neither the flag
			// nor autocoder.toml sets one, not the flags' zero values.
			&cli.StringFlag{Name: "model", Usage: "the `MODEL` to ask ([model] model)"},
			&cli.StringFlag{Name: "base-url", Usage: "the API's base `URL` (OPENAI_BASE_URL, [model] base_url)"},
			&cli.StringFlag{Name: "dialect", Usage: "the `DIALECT` the model is taught: " + strings.Join(prompt.Dialects, ", ") + " ([model] dialect)", DefaultText: def.Dialect},
			&cli.StringFlag{Name: "lang", Usage: "the system prompt's `LANGUAGE`: " + strings.Join(prompt.Langs, " or ") + " ([model] lang)", DefaultText: localeDefault},
			&cli.IntFlag{Name: "max-turns", Usage: "stop after `N` answers ([model] max_turns)", DefaultText: strconv.FormatInt(def.MaxTurns, 10)},
			&cli.Int64Flag{Name: "max-tokens", Usage: "stop once the run has used `N` tokens ([model] max_tokens)", DefaultText: strconv.FormatInt(def.MaxTokens, 10)},
			&cli.BoolFlag{Name: "no-stream", Usage: "wait for whole answers instead of streaming them ([model] stream)"},
			&cli.StringFlag{Name: "branch", Usage: "work branch `NAME` (autocoder/ is prepended when missing)"},
			&cli.BoolFlag{Name: "allow-programs", Usage: "let the model run any program (autocoder.toml [programs] otherwise decides)"},
			&cli.BoolFlag{Name: "tools", Usage: "offer the edits as functions through the API's function calling (apply_patch, str_replace_based_edit_tool, read_file, run_program where programs are allowed, finish) instead of teaching a dialect"},
			worktreeFlag(),
		},
		Action: func(c *cli.Context) error {
			return inWorktree(c, c.String("C"), func(string) error { return runRun(c) })
		},
	}
}

// runExitCodes are run's exit codes, as its help and the README give them
// (TestRunExitCodesDocumented holds them alike).
const runExitCodes = `Exit codes:
  0    the model finished (or answered without a block); every program it ran succeeded
  1    the model did not finish within --max-turns or --max-tokens, or the model API failed
  2    usage: no task, no model, an unknown dialect; or the API refused the key or the model
  4    a program the policy does not allow was asked for, in any turn (it did not run)
  5    a program failed or timed out, in any turn
  130  interrupted (Ctrl-C; 143 for SIGTERM): the answer in flight was not applied or was taken back
A failed step does not change the exit code: the model was told why, and answered it.`

func runRun(c *cli.Context) (err error) {
	task, err := readTask(c)
	if err != nil {
		return err
	}
	// The engine is kept for every turn, as an MCP session keeps its
	// own: each turn's answer is one engine Run, which writes the index
	// at its end, so the index is written split (Session), the entries
	// changed beside a shared file, not the whole 10 MB at 100k files
	// every turn.
	e, err := openEngineWith(c, lib.Options{Branch: c.String("branch"), AllowPrograms: c.Bool("allow-programs"), Session: true})
	if err != nil {
		return err
	}
	defer closeEngine(c, e.Engine, &err)
	ac, err := agentConfig(c, e.Settings.Config, c.Bool("allow-programs"))
	if err != nil {
		return err
	}
	// The model's answer streams to the terminal, and its summary ends
	// the report: shown, not obeyed (termsafe). Each streamed chunk is
	// whole runes (a decoded JSON string).
	out := termsafe.Writer{W: c.App.Writer}
	ac.Out, ac.Progress = out, c.App.ErrWriter
	// The policy in force at each answer: Run reads the settings again
	// when they change (autocoder.Engine.Run).
	ac.RefusedHint = func(p step.Program) string { return e.Programs.RefusedHint("run")(p) }
	_, base := e.Head()
	rep, runErr := agent.Run(c.Context, e, ac, task)
	if err := e.Flush(); err != nil && runErr == nil {
		runErr = err
	}
	branch, _ := e.Head()
	rep.Print(out, branch, base)
	// The conversation is kept with the repository's own data, where
	// `autocoder show` finds the turn a step came from.
	if priv, err := recordsIn(c, e.Private()); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "autocoder: warning: %v\n", err)
	} else if path, err := rep.Keep(priv, time.Now()); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "autocoder: warning: %v\n", err)
	} else {
		fmt.Fprintf(c.App.Writer, "conversation: %s\n", path)
	}
	if runErr != nil {
		return runErr
	}
	switch rep.Stop {
	case agent.StopMaxTurns, agent.StopBudget:
		return &step.Error{C: step.ClassStepFailed, Msg: fmt.Sprintf("the model did not finish: %s", rep.Stop),
			Fix: "review what it did (autocoder log), then run again with a larger --max-turns or --max-tokens to go on"}
	}
	return programFailure(c.App.ErrWriter, rep)
}

// programFailure is the exit of a run whose model finished (step.Judge
// over every turn, as a loop): as for apply, 4 when the policy refused a
// program, 5 when one failed or timed out, in any turn. A failed step is
// not counted: the model was told and answered it, and the loop goes on
// after it by design. Each trouble was printed with its hint as its turn
// ended (agent); this says which one decides the exit code.
func programFailure(stderr io.Writer, rep *agent.Report) error {
	v := step.Judge(rep.Results(), true)
	if !v.Failed {
		return nil
	}
	what := "failed"
	switch v.Program.Status {
	case step.ProgramRefused:
		what = "was refused by the program policy (it did not run)"
	case step.ProgramTimeout:
		what = "was stopped at its timeout"
	}
	fmt.Fprintf(stderr, "autocoder run: the program %s %s; its answer is in the conversation (autocoder show)\n",
		termsafe.Escape(v.Program.Name), what)
	return &reported{class: v.Class}
}

// maxTaskBytes caps a task read from standard input.
const maxTaskBytes = 1 << 20

// readTask is the task: the arguments as one text, or standard input for -.
func readTask(c *cli.Context) (string, error) {
	try := `Try: autocoder run --model MODEL "add a --verbose flag to cmd/tool"`
	if c.NArg() == 0 {
		return "", &usageError{msg: "run needs a task", try: try}
	}
	task := strings.Join(c.Args().Slice(), " ")
	if task == "-" {
		b, err := io.ReadAll(io.LimitReader(c.App.Reader, maxTaskBytes+1))
		if err != nil {
			return "", err
		}
		if len(b) > maxTaskBytes {
			return "", &usageError{msg: fmt.Sprintf("the task is larger than %d bytes", maxTaskBytes),
				try: "give the model a shorter task, and the files it needs to read as files of the repository"}
		}
		task = string(b)
	}
	if strings.TrimSpace(task) == "" {
		return "", &usageError{msg: "the task is empty", try: try}
	}
	return task, nil
}

// agentConfig is the run's settings: flags, then the environment, then
// autocoder.toml's [model], then the defaults.
func agentConfig(c *cli.Context, cfg config.Config, allowPrograms bool) (agent.Config, error) {
	m := cfg.Model
	pick := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	ac := agent.Config{
		BaseURL:    pick(c.String("base-url"), os.Getenv("OPENAI_BASE_URL"), m.BaseURL, "https://api.openai.com/v1"),
		Model:      pick(c.String("model"), m.Name),
		MaxRetries: int(m.MaxRetries),
		NoStream:   c.Bool("no-stream") || !m.Stream,
		MaxTurns:   int(m.MaxTurns),
		MaxTokens:  m.MaxTokens,
		// An answer is a response: the cap of apply's.
		MaxAnswerBytes: cfg.Apply.MaxResponseBytes,
		IdleTimeout:    m.IdleTimeout,
		AnswerTimeout:  m.AnswerTimeout,
	}
	if m.APIKeyEnv != "" {
		ac.APIKey, ac.APIKeyEnv = runner.APIKey(m.APIKeyEnv), m.APIKeyEnv
	}
	if c.IsSet("max-turns") {
		ac.MaxTurns = c.Int("max-turns")
	}
	if c.IsSet("max-tokens") {
		ac.MaxTokens = c.Int64("max-tokens")
	}
	if ac.Model == "" {
		return ac, &usageError{msg: "no model: say which one to ask",
			try: "Try: autocoder run --model gpt-4o TASK, or set model in the [model] table of autocoder.toml"}
	}
	lang := pick(c.String("lang"), m.Lang, prompt.LocaleLang(os.Getenv))
	if c.Bool("tools") {
		if c.IsSet("dialect") {
			return ac, &usageError{msg: "--tools and --dialect: a run offers functions or teaches a dialect, not both",
				try: "Try: autocoder run --tools TASK, or autocoder run --dialect DIALECT TASK"}
		}
		ac.Tools, ac.Programs = true, allowPrograms || cfg.Programs.Enabled
		sys, err := prompt.Tools(lang)
		if err != nil {
			return ac, &usageError{msg: err.Error(), try: "Try: --lang " + strings.Join(prompt.Langs, "|")}
		}
		ac.System = sys
		return ac, nil
	}
	sys, err := prompt.Text(pick(c.String("dialect"), m.Dialect), lang)
	if err != nil {
		return ac, &usageError{msg: err.Error(), try: "Try: --dialect " + strings.Join(prompt.Dialects, "|") + " --lang " + strings.Join(prompt.Langs, "|")}
	}
	ac.System = sys
	return ac, nil
}
