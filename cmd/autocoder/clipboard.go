package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/atotto/clipboard"

	"github.com/autocoder/autocoder/step"
)

// The system clipboard, for apply --clipboard: the relay of a chat page. We
// use github.com/atotto/clipboard: it needs no cgo (golang.design/x/clipboard
// links X11 through cgo, which `go install` on a machine without the X
// headers, or for another OS, cannot build), and it talks to the tools each
// system already has: pbcopy/pbpaste on macOS, the Win32 clipboard on
// Windows, wl-copy/wl-paste on Wayland and xclip or xsel on X11.

// ClipboardError is a clipboard autocoder cannot reach.
type ClipboardError struct {
	Op  string // "read" or "write"
	Err error
}

func (e *ClipboardError) Error() string {
	return fmt.Sprintf("cannot %s the clipboard: %v", e.Op, e.Err)
}

// Unwrap returns the cause.
func (e *ClipboardError) Unwrap() error { return e.Err }

// Class: the machine lacks what the flag needs, as a usage error would.
func (e *ClipboardError) Class() step.Class { return step.ClassUsage }

// Hint says what to install, or what is missing, on this system.
func (e *ClipboardError) Hint() string {
	switch runtime.GOOS {
	case "darwin":
		return "pbcopy and pbpaste come with macOS; run autocoder in your own login session (not over ssh), or use apply FILE and --feedback FILE"
	case "windows":
		return "run autocoder in your desktop session, or use apply FILE and --feedback FILE"
	}
	if clipboard.Unsupported {
		return "install a clipboard tool: xclip or xsel for X11 (apt-get install xclip), wl-clipboard for Wayland (apt-get install wl-clipboard); or use apply FILE and --feedback FILE"
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return "no graphical session: DISPLAY (X11) and WAYLAND_DISPLAY are unset; run autocoder in your desktop's terminal, or use apply FILE and --feedback FILE"
	}
	return "check that the clipboard tool (xclip, xsel or wl-clipboard) works in this session"
}

// readClipboard is the response the user copied from a chat page.
func readClipboard() ([]byte, error) {
	if clipboard.Unsupported {
		return nil, &ClipboardError{Op: "read", Err: fmt.Errorf("no clipboard tool found")}
	}
	s, err := clipboard.ReadAll()
	if err != nil {
		return nil, &ClipboardError{Op: "read", Err: err}
	}
	if strings.TrimSpace(s) == "" {
		return nil, &usageError{msg: "the clipboard holds no text", try: "copy the model's whole answer on the chat page, then run autocoder apply --clipboard again"}
	}
	return []byte(s), nil
}

// writeClipboard puts the executor's answer on the clipboard, ready to paste.
func writeClipboard(text []byte) error {
	if clipboard.Unsupported {
		return &ClipboardError{Op: "write", Err: fmt.Errorf("no clipboard tool found")}
	}
	if err := clipboard.WriteAll(string(text)); err != nil {
		return &ClipboardError{Op: "write", Err: err}
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		// xclip, xsel and wl-copy return before the process they leave
		// behind owns the selection: until it does, a paste gets what was
		// there before. "The answer is on the clipboard" is said once it
		// is (or after a short wait, should a clipboard manager change it).
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if s, err := clipboard.ReadAll(); err == nil && s == string(text) {
				break
			}
		}
	}
	return nil
}
