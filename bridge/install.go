package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// Browsers are the browsers autocoder bridge install knows.
var Browsers = []string{"chrome", "chromium", "edge", "brave", "firefox"}

// manifest is the native-messaging host manifest.
type manifest struct {
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Path              string   `json:"path"`
	Type              string   `json:"type"`
	AllowedOrigins    []string `json:"allowed_origins,omitempty"`    // Chromium's browsers
	AllowedExtensions []string `json:"allowed_extensions,omitempty"` // Firefox
}

func manifestFor(browser, exe string) []byte {
	m := manifest{Name: HostName, Type: "stdio", Path: exe,
		Description: "autocoder: applies a chat answer's instruction blocks to a registered git repository, one commit per step"}
	if browser == "firefox" {
		m.AllowedExtensions = []string{FirefoxID}
	} else {
		m.AllowedOrigins = []string{"chrome-extension://" + ExtensionID + "/"}
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

// Target is where one browser reads the host manifest.
type Target struct {
	Browser string
	// File is the manifest's path.
	File string
	// Key is the registry key that names File (Windows; "" elsewhere).
	Key string
}

// Targets are the places to install into: browser ("" for every browser
// whose profile folder exists), or the folder of a profile started with
// --user-data-dir.
func Targets(browser, userDataDir string) ([]Target, error) {
	if browser != "" && !slices.Contains(Browsers, browser) {
		return nil, &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("unknown browser %q", browser),
			Fix: "--browser is one of " + strings.Join(Browsers, ", ")}
	}
	if userDataDir != "" {
		if browser == "firefox" {
			return nil, &step.Error{C: step.ClassUsage, Msg: "--user-data-dir is a Chromium profile folder; Firefox reads its hosts from one folder per user",
				Fix: "autocoder bridge install --browser firefox"}
		}
		if browser == "" {
			browser = "chromium"
		}
		abs, err := filepath.Abs(userDataDir)
		if err != nil {
			return nil, err
		}
		return []Target{{Browser: browser, File: filepath.Join(abs, "NativeMessagingHosts", HostName+".json")}}, nil
	}
	var out []Target
	for _, b := range Browsers {
		if browser != "" && b != browser {
			continue
		}
		t, profile, err := target(b)
		if err != nil {
			return nil, err
		}
		if browser == "" {
			if _, err := os.Stat(profile); err != nil {
				continue // not installed for this user
			}
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, &step.Error{C: step.ClassUsage, Msg: "found no browser profile to install into",
			Fix: "name the browser: autocoder bridge install --browser chrome (or " + strings.Join(Browsers[1:], ", ") + ")"}
	}
	return out, nil
}

// Install writes the host manifest for t, naming exe, the absolute path
// of this program, as the host the browser starts.
func Install(t Target, exe string) error {
	if err := os.MkdirAll(filepath.Dir(t.File), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(t.File, manifestFor(t.Browser, exe), 0o644); err != nil {
		return err
	}
	return register(t)
}

// Uninstall removes what Install wrote; true when there was something.
func Uninstall(t Target) (bool, error) {
	err := os.Remove(t.File)
	found := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	had, err := unregister(t)
	return found || had, err
}
