package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// xCmds are the script commands for the clipboard scripts:
//
//	xserver
//	    start a virtual X server (Xvfb) for the rest of the script and set
//	    DISPLAY to it. Scripts skip, saying why, where Xvfb or xclip is not
//	    installed; .ci/run installs both, so CI never skips.
func xCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"xserver": func(ts *testscript.TestScript, neg bool, args []string) {
			// A display number per script: scripts run in parallel.
			for n := 100 + os.Getpid()%200; n < 1000; n += 7 {
				if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
					continue
				}
				cmd := exec.Command("Xvfb", fmt.Sprintf(":%d", n), "-nolisten", "tcp")
				if err := cmd.Start(); err != nil {
					ts.Fatalf("start Xvfb: %v", err)
				}
				sock := filepath.Join("/tmp/.X11-unix", fmt.Sprintf("X%d", n))
				for i := 0; i < 100; i++ {
					if _, err := os.Stat(sock); err == nil {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				if _, err := os.Stat(sock); err != nil {
					cmd.Process.Kill()
					cmd.Wait()
					continue // another script took the display first
				}
				ts.Defer(func() {
					cmd.Process.Kill()
					cmd.Wait()
				})
				ts.Setenv("DISPLAY", fmt.Sprintf(":%d", n))
				return
			}
			ts.Fatalf("no free X display")
		},
	}
}
