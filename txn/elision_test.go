package txn

import (
	"errors"
	"strings"
	"testing"
)

func TestElisionPlaceholders(t *testing.T) {
	for _, l := range []string{
		"    // ... existing code ...",
		"# ... rest of the file unchanged",
		"// rest of the file unchanged",
		"  /* ... remaining methods ... */",
		"<!-- existing content -->",
		"# the rest of the code remains the same",
		"-- ... other functions ...",
		"    # ... (existing imports)",
		"{/* ... existing code ... */}",
		"// Rest of the implementation is unchanged",
	} {
		if n, _ := findElision([]byte("a\n" + l + "\nb\n")); n != 2 {
			t.Errorf("%q is a placeholder", l)
		}
	}
	for _, l := range []string{
		"    ...", // Python's Ellipsis
		"// keep the rest of the buffer for the next read",
		"# existing users are migrated below",
		"x = rest_of_the_file()",
		`print("... existing code ...")`,
	} {
		if n, _ := findElision([]byte(l + "\n")); n != 0 {
			t.Errorf("%q is not a placeholder", l)
		}
	}
}

func TestElisionRefusesOnlyWhatLosesCode(t *testing.T) {
	old := "import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n"
	lossy := "import os\n\n# ... existing code ...\n\ndef c():\n    return 4\n"
	var ee *ElisionError
	if err := checkElision("m.py", []byte(old), []byte(lossy)); !errors.As(err, &ee) || ee.Line != 3 || ee.Lost != 5 || ee.Total != 7 {
		t.Fatalf("lossy write: %v", err)
	}
	if !strings.Contains(ee.Hint(), "send an edit") {
		t.Errorf("hint %q", ee.Hint())
	}
	// The placeholder in a write that keeps most of the file (a comment
	// that happens to read so) is not refused, nor a write without one.
	keeps := strings.Replace(old, "def c():", "# ... existing code ...\ndef c():", 1)
	if err := checkElision("m.py", []byte(old), []byte(keeps)); err != nil {
		t.Errorf("a write that keeps the file: %v", err)
	}
	if err := checkElision("m.py", []byte(old), []byte("x = 1\n")); err != nil {
		t.Errorf("a write without a placeholder: %v", err)
	}
}
