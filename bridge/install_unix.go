//go:build !windows

package bridge

import (
	"os"
	"path/filepath"
	"runtime"
)

// target is where browser reads host manifests for this user, and the
// folder whose presence says the browser is used here.
func target(browser string) (Target, string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Target{}, "", err
	}
	var profile, hosts string
	if runtime.GOOS == "darwin" {
		base := filepath.Join(home, "Library", "Application Support")
		profile = filepath.Join(base, map[string]string{"chrome": "Google/Chrome", "chromium": "Chromium", "edge": "Microsoft Edge",
			"brave": "BraveSoftware/Brave-Browser", "firefox": "Mozilla"}[browser])
		hosts = filepath.Join(profile, "NativeMessagingHosts")
	} else {
		conf, err := os.UserConfigDir() // $XDG_CONFIG_HOME, as the browsers read it
		if err != nil {
			return Target{}, "", err
		}
		profile = filepath.Join(conf, map[string]string{"chrome": "google-chrome", "chromium": "chromium", "edge": "microsoft-edge",
			"brave": "BraveSoftware/Brave-Browser"}[browser])
		hosts = filepath.Join(profile, "NativeMessagingHosts")
		if browser == "firefox" {
			profile = filepath.Join(home, ".mozilla")
			hosts = filepath.Join(profile, "native-messaging-hosts")
		}
	}
	return Target{Browser: browser, File: filepath.Join(hosts, HostName+".json")}, profile, nil
}

// register: outside Windows the manifest's folder is all a browser reads.
func register(Target) error { return nil }

func unregister(Target) (bool, error) { return false, nil }
