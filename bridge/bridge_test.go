package bridge

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

// The extension's manifests name what the host checks: Chromium's the key
// the id follows from (extension/key.pub), Firefox's the add-on id; and
// both load the same scripts.
func TestExtensionManifestsMatchTheHost(t *testing.T) {
	type contentScript struct {
		Matches []string `json:"matches"`
		JS      []string `json:"js"`
	}
	var chromium, firefox struct {
		Key            string          `json:"key"`
		Permissions    []string        `json:"permissions"`
		ContentScripts []contentScript `json:"content_scripts"`
		Background     struct {
			ServiceWorker string   `json:"service_worker"`
			Scripts       []string `json:"scripts"`
		} `json:"background"`
		Specific struct {
			Gecko struct {
				ID string `json:"id"`
			} `json:"gecko"`
		} `json:"browser_specific_settings"`
	}
	for path, m := range map[string]any{"../extension/manifest.json": &chromium, "../extension/manifest.firefox.json": &firefox} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	pub, err := os.ReadFile("../extension/key.pub")
	if err != nil {
		t.Fatal(err)
	}
	if chromium.Key != strings.TrimSpace(string(pub)) {
		t.Fatal("manifest.json's key is not extension/key.pub: the extension's id would not be ExtensionID")
	}
	if firefox.Specific.Gecko.ID != FirefoxID {
		t.Fatalf("manifest.firefox.json's add-on id is %q, the host answers %q", firefox.Specific.Gecko.ID, FirefoxID)
	}
	if chromium.Background.ServiceWorker != "background.js" || strings.Join(firefox.Background.Scripts, " ") != "adapters.js background.js" {
		t.Fatalf("the backgrounds differ: %+v %+v", chromium.Background, firefox.Background)
	}
	c, f := fmt.Sprint(chromium.ContentScripts, chromium.Permissions), fmt.Sprint(firefox.ContentScripts, firefox.Permissions)
	if c != f || !strings.Contains(c, "nativeMessaging") {
		t.Fatalf("the manifests load different scripts or ask for different permissions:\n%s\n%s", c, f)
	}
	if bg, err := os.ReadFile("../extension/background.js"); err != nil || !strings.Contains(string(bg), `const HOST = "`+HostName+`";`) {
		t.Fatalf("background.js does not connect to %s: %v", HostName, err)
	}
	for _, cs := range chromium.ContentScripts {
		for _, js := range cs.JS {
			if _, err := os.Stat("../extension/" + js); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// What is left once the patch, the feedback and the report are cut can
// still be larger than a browser accepts: the summary's file names, the
// commits and an error grow with the answer too. The reply fits all the
// same, and says what it left out.
func TestReplyFitsWithManyFilesAndCommits(t *testing.T) {
	var files, commits []string
	for i := range 2000 {
		files = append(files, fmt.Sprintf("d/%s%d", strings.Repeat("&", 240), i))
	}
	for i := range 30000 {
		commits = append(commits, fmt.Sprintf("%040x", i))
	}
	for _, rep := range []Reply{
		{ID: "1", Type: "preview", OK: true, Outcome: "previewed", Summary: &Summary{Steps: 2000, Files: files}},
		{ID: "2", Type: "apply", OK: true, Outcome: "applied", Summary: &Summary{Steps: 30000, Files: []string{}}, Commits: commits},
		{ID: "3", Type: "apply", Outcome: "error", Error: strings.Repeat("<", 1<<20), Hint: strings.Repeat("&", 1<<20)},
	} {
		b := fit(rep)
		var got Reply
		if len(b) > MaxReply || json.Unmarshal(b, &got) != nil {
			t.Fatalf("reply %s: %d bytes", rep.ID, len(b))
		}
		if got.ID != rep.ID || got.OK != rep.OK || got.Outcome != rep.Outcome || got.Truncated == "" {
			t.Fatalf("reply %s: %+v", rep.ID, got.Truncated)
		}
		if rep.Summary != nil && (got.Summary == nil || got.Summary.Steps != rep.Summary.Steps) {
			t.Fatalf("reply %s: the step count was lost: %+v", rep.ID, got.Summary)
		}
	}
}
