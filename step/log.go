package step

// LogEntry is one commit on a work branch: a step (Kind "step"), or a
// commit of the user's own among them (Kind "user", no StepID). The engine
// lists them (log, undo, redo); report writes them.
type LogEntry struct {
	StepID  string `json:"step_id" jsonschema:"the step id (the Autocoder-Step trailer); empty for a commit of the user's own"`
	Kind    string `json:"kind" jsonschema:"step, or user for a commit of the user's own on the work branch"` // "step" or "user"
	Commit  string `json:"commit" jsonschema:"the commit id, 40 hex digits"`
	Subject string `json:"subject"`
	Author  string `json:"author"`
	Date    string `json:"date" jsonschema:"the author date: 2006-01-02 15:04:05 -0700"`
}

// CommitInfo is what `autocoder show` tells about one step: its commit, the
// files it changed and the block the model wrote (the step's git note).
type CommitInfo struct {
	LogEntry
	Branch  string   `json:"branch"`
	Message string   `json:"message"`
	Files   []string `json:"files" jsonschema:"the paths the commit changed, each after A (added), M (modified) or D (deleted) and a space"` // "A path", "M path", "D path"
	Block   string   `json:"block,omitempty" jsonschema:"the block the model wrote, as the response held it (the commit's git note)"`
}
