package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// xCmds are the script commands for the clipboard scripts:
//
//	xserver
//	    start a virtual X server (Xvfb) for the rest of the script and set
//	    DISPLAY to it. Scripts skip, saying why, where Xvfb or xclip is not
//	    installed; .ci/run installs both, so CI never skips.
//	copy FILE
//	    put FILE's text on the clipboard (xclip) and wait until it is there.
func xCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"xserver": func(ts *testscript.TestScript, neg bool, args []string) {
			// Xvfb picks a free display itself and writes its number to
			// -displayfd: guessing one raced with other test processes,
			// whose server a script then shared (and its clipboard).
			r, w, err := os.Pipe()
			ts.Check(err)
			defer r.Close()
			cmd := exec.Command("Xvfb", "-displayfd", "3", "-nolisten", "tcp")
			cmd.ExtraFiles = []*os.File{w}
			if err := cmd.Start(); err != nil {
				w.Close()
				ts.Fatalf("start Xvfb: %v", err)
			}
			w.Close()
			ts.Defer(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			got := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(r).ReadString('\n')
				got <- strings.TrimSpace(line)
			}()
			select {
			case n := <-got:
				if _, err := strconv.Atoi(n); err != nil {
					ts.Fatalf("Xvfb did not say its display (%q)", n)
				}
				ts.Setenv("DISPLAY", ":"+n)
			case <-time.After(20 * time.Second):
				ts.Fatalf("Xvfb did not start within 20 s")
			}
		},
		"copy": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 {
				ts.Fatalf("usage: copy FILE")
			}
			want := ts.ReadFile(args[0])
			env := append(os.Environ(), "DISPLAY="+ts.Getenv("DISPLAY"))
			in := exec.Command("xclip", "-selection", "clipboard", "-in")
			in.Env, in.Stdin = env, strings.NewReader(want)
			ts.Check(in.Run())
			// xclip's parent exits before the child that serves the
			// selection owns it: wait until the clipboard holds the text,
			// or autocoder may read what was there before.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				out := exec.Command("xclip", "-selection", "clipboard", "-out")
				out.Env = env
				if b, _ := out.Output(); string(b) == want {
					return
				}
				if time.Now().After(deadline) {
					ts.Fatalf("the clipboard does not hold %s after 10 s", args[0])
				}
			}
		},
	}
}
