package bridge

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The fixed id is the one Chromium derives from the committed key.
func TestExtensionIDFollowsFromTheKey(t *testing.T) {
	b64, err := os.ReadFile("../extension/key.pub")
	if err != nil {
		t.Fatal(err)
	}
	der, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b64)))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	id := strings.Map(func(r rune) rune {
		if r <= '9' {
			return 'a' + r - '0'
		}
		return 'a' + 10 + r - 'a'
	}, hex.EncodeToString(sum[:])[:32])
	if id != ExtensionID {
		t.Fatalf("the key gives %s, ExtensionID is %s", id, ExtensionID)
	}
}

// A reply larger than a browser accepts is cut to fit, stays JSON, and
// says what was cut and how to see it whole.
func TestReplyFitsTheBrowsersLimit(t *testing.T) {
	small := Reply{ID: "1", Type: "preview", OK: true, Patch: "diff\n", Feedback: "ok"}
	if b := fit(small); !strings.Contains(string(b), `"patch":"diff\n"`) || strings.Contains(string(b), "truncated") {
		t.Fatalf("a small reply was changed: %s", b)
	}
	patch := strings.Repeat("+ a line of the patch with a \"quote\" and é\n", 80000) // ~3.4 MiB, more once escaped
	report, _ := json.Marshal(map[string]string{"x": strings.Repeat("r", 2<<20)})
	for _, rep := range []Reply{
		{ID: "1", Type: "preview", OK: true, Patch: patch, Feedback: "short"},
		{ID: "2", Type: "apply", OK: true, Feedback: patch},
		{ID: "3", Type: "preview", OK: true, Patch: patch, Feedback: patch, Report: report},
	} {
		b := fit(rep)
		var got Reply
		if len(b) > MaxReply || json.Unmarshal(b, &got) != nil {
			t.Fatalf("reply %s: %d bytes", rep.ID, len(b))
		}
		if got.ID != rep.ID || !got.OK || !strings.Contains(got.Truncated, "autocoder apply") {
			t.Fatalf("reply %s: %+v", rep.ID, got.Truncated)
		}
		if rep.Patch != "" && rep.Report == nil && got.Patch == "" ||
			got.Patch != "" && (!strings.HasPrefix(rep.Patch, got.Patch) || !strings.HasSuffix(got.Patch, "\n")) {
			t.Fatalf("reply %s: the patch kept is not a head of whole lines", rep.ID)
		}
	}
}
