package bridge

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// ExtensionID is the Chromium id of autocoder's extension. Chromium derives
// an unpacked extension's id from the "key" of its manifest.json: the first
// 32 hex digits of the SHA-256 of that key (a DER public key, in base64 in
// extension/key.pub), with the digits 0-9a-f written as the letters a-p
// (TestExtensionIDFollowsFromTheKey checks it). The private key is not
// needed and is not kept: an unpacked extension is loaded from its folder,
// never signed; the key only fixes its id, so that the host manifest can
// name it and the id does not change with the folder it is loaded from.
const ExtensionID = "keefahccgmkcbfholpgfbjpooblkgkfk"

// FirefoxID is the add-on id in the Firefox manifest
// (browser_specific_settings.gecko.id).
const FirefoxID = "autocoder@autocoder.dev"

// HostName is the native-messaging host's name, which the extension passes
// to connectNative and the host manifest's file is named after.
const HostName = "dev.autocoder.bridge"

// OriginError is a host started for another extension than autocoder's.
type OriginError struct{ Args []string }

func (e *OriginError) Error() string {
	if len(e.Args) == 0 {
		return "autocoder bridge talks only to autocoder's browser extension, which starts it; it was started without the caller's origin"
	}
	return fmt.Sprintf("autocoder bridge talks only to autocoder's browser extension (chrome-extension://%s/ or %s), not to %q",
		ExtensionID, FirefoxID, strings.Join(e.Args, " "))
}

// Hint says what to do.
func (e *OriginError) Hint() string {
	return "the browser starts autocoder bridge itself once autocoder bridge install has registered it; load autocoder's extension"
}

// Class is refused.
func (e *OriginError) Class() step.Class { return step.ClassRefused }

// checkOrigin checks the arguments the browser started the host with:
// Chromium passes the caller's origin, chrome-extension://ID/ (on Windows a
// --parent-window=N after it); Firefox passes the path of the host manifest
// and the add-on's id.
func checkOrigin(args []string) error {
	switch {
	case len(args) >= 1 && args[0] == "chrome-extension://"+ExtensionID+"/":
		return nil
	case len(args) >= 2 && strings.HasSuffix(args[0], ".json") && args[1] == FirefoxID:
		return nil
	}
	return &OriginError{Args: args}
}

// StartedByBrowser says whether args (the program's arguments, after its
// name) are the ones a browser starts a native-messaging host with. The
// host manifest names the autocoder binary itself, and a manifest's path
// takes no arguments: Chromium's browsers run `autocoder
// chrome-extension://ID/` (on Windows with --parent-window=N after it),
// Firefox `autocoder /path/to/dev.autocoder.bridge.json ADDON-ID`. Such a
// start is autocoder bridge, which then checks the caller.
func StartedByBrowser(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if strings.HasPrefix(args[0], "chrome-extension://") {
		return true
	}
	return len(args) >= 2 && filepath.Base(args[0]) == HostName+".json"
}
