package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESpeaksToUsers: the README is for a user of autocoder, not for
// the people who build it. It names no design document the repository does
// not hold (DESIGN.md), none of the builders' words ("the seeds", the
// dialects' source "FlyCode", "our", "we"), and it explains the work
// branches a user finds beside autocoder/main (-2, -3: when apply makes
// them and why).
func TestREADMESpeaksToUsers(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, doc := range []string{"DESIGN.md", "DIALECTS.md", "FORMATS.md", "BRIDGE.md", "STYLE.md"} {
		if _, err := os.Stat(filepath.Join("../..", doc)); err != nil && strings.Contains(text, doc) {
			t.Errorf("the README names %s, which the repository does not hold", doc)
		}
	}
	for _, w := range []string{`(?i)\bseeds?\b[^\n]*(describe|dialect)`, `(?i)flycode`, `(?i)\bour\b`, `(?i)\bwe\b`} {
		if m := regexp.MustCompile(w).FindString(text); m != "" {
			t.Errorf("the README speaks to its builders, not its users: %q", m)
		}
	}
	flat := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{"`autocoder/main-2`", "`-3`", "already exists"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the README does not explain the work branches' suffixes: no %q", want)
		}
	}
}
