package bridge

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/autocoder/autocoder/config"
	"golang.org/x/sys/windows/registry"
)

// target: on Windows a browser finds the manifest through a registry key
// of the user's (HKCU\Software\<browser>\NativeMessagingHosts\<name>),
// whose default value is the manifest's path; the manifest itself is kept
// in autocoder's folder.
func target(browser string) (Target, string, error) {
	dir, err := config.UserDir()
	if err != nil {
		return Target{}, "", err
	}
	vendor := map[string]string{"chrome": `Google\Chrome`, "chromium": "Chromium", "edge": `Microsoft\Edge`,
		"brave": `BraveSoftware\Brave-Browser`, "firefox": "Mozilla"}[browser]
	local := os.Getenv("LOCALAPPDATA")
	profile := filepath.Join(local, map[string]string{"chrome": `Google\Chrome`, "chromium": "Chromium", "edge": `Microsoft\Edge`,
		"brave": `BraveSoftware\Brave-Browser`, "firefox": ""}[browser])
	if browser == "firefox" {
		profile = filepath.Join(os.Getenv("APPDATA"), "Mozilla", "Firefox")
	}
	return Target{Browser: browser, File: filepath.Join(dir, "native-messaging", HostName+"-"+browser+".json"),
		Key: `Software\` + vendor + `\NativeMessagingHosts\` + HostName}, profile, nil
}

func register(t Target) error {
	if t.Key == "" {
		return nil // a --user-data-dir profile: the folder is enough
	}
	k, _, err := registry.CreateKey(registry.CURRENT_USER, t.Key, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.SetStringValue("", t.File)
}

func unregister(t Target) (bool, error) {
	if t.Key == "" {
		return false, nil
	}
	err := registry.DeleteKey(registry.CURRENT_USER, t.Key)
	if errors.Is(err, registry.ErrNotExist) || errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
