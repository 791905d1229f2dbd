package step

// LogEntry is one commit on a work branch: a step (Kind "step"), or a
// commit of the user's own among them (Kind "user", no StepID). The engine
// lists them (log, undo, redo); protocol/report writes them.
type LogEntry struct {
	StepID  string `json:"step_id"`
	Kind    string `json:"kind"` // "step" or "user"
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	Author  string `json:"author"`
	Date    string `json:"date"`
}

// CommitInfo is what `autocoder show` tells about one step: its commit, the
// files it changed and the block the model wrote (the step's git note).
type CommitInfo struct {
	LogEntry
	Branch  string   `json:"branch"`
	Message string   `json:"message"`
	Files   []string `json:"files"` // "A path", "M path", "D path"
	Block   string   `json:"block,omitempty"`
}
