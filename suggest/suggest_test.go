package suggest

import "testing"

func TestClosest(t *testing.T) {
	acts := []string{"write_file", "append_file", "replace", "patch_file", "move_file", "delete_file", "read_file", "run_command"}
	keys := []string{"apply.branch_prefix", "programs.enabled", "programs.allow", "programs.max_output_bytes", "verify.command", "paths.deny"}
	for _, c := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"WriteFile", acts, "write_file"},
		{"write-file", acts, "write_file"},
		{"writ_file", acts, "write_file"},
		{"replce", acts, "replace"},
		{"write", acts, "write_file"},
		{"list_dir", acts, ""},
		{"rename_file", acts, ""},
		{"file", []string{"file_path", "profile"}, "file_path"},
		{"programs.alow", keys, "programs.allow"},
		{"programs.Enabled", keys, "programs.enabled"},
		{"apply.max_output_bytes", keys, "programs.max_output_bytes"},
		{"verify.cmd", keys, ""},
		{"", keys, ""},
		{"x", keys, ""},
		{"fs.reed", []string{"fs.ls", "fs.read", "fs.rm"}, "fs.read"},
		{"aply", []string{"apply", "undo", "redo", "log"}, "apply"},
		{"dryrun", []string{"dry-run", "atomic"}, "dry-run"},
	} {
		if got := Closest(c.word, c.candidates); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}
