package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

// --version reports the commit the binary was built from.
func TestVersionUsesVCSInfo(t *testing.T) {
	defer func(f func() (*debug.BuildInfo, bool)) { readBuildInfo = f }(readBuildInfo)
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "45961f9abcdef0123456789"},
			{Key: "vcs.time", Value: "2026-12-03T07:30:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}, true
	}
	if got := versionString(); got != "dev-45961f9abcde-dirty" {
		t.Errorf("versionString %q", got)
	}
	txt := versionText()
	for _, want := range []string{"aipwatch dev-45961f9abcde-dirty\n", "commit 45961f9abcdef0123456789 (2026-12-03T07:30:00Z), with uncommitted changes\n", "built with go"} {
		if !strings.Contains(txt, want) {
			t.Errorf("--version lacks %q:\n%s", want, txt)
		}
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true
	}
	if got := versionString(); got != "v1.2.3" {
		t.Errorf("module version: %q", got)
	}
}
