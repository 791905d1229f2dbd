package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.modified", Value: "true"},
		{Key: "vcs.time", Value: "2026-11-23T08:00:00Z"},
	}}
	want := "autocoder v1.2.3 (commit 0123456789ab, with uncommitted changes, 2026-11-23T08:00:00Z, " + runtime.Version() + ")"
	if got := versionOf(bi, true); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	dev := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	if got, want := versionOf(dev, true), "autocoder "+version+" (no commit recorded, "+runtime.Version()+")"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
