package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"aipwatch/cli"
)

// The man pages keep what --help has: the root's page has EXIT STATUS
// (the verdict's exit codes), ENVIRONMENT, FILES and EXAMPLES; every page
// names each of its command's flags as the help does, a default once,
// never a boolean's [=false].
func TestManPagesKeepTheHelp(t *testing.T) {
	pages, err := manPages()
	if err != nil {
		t.Fatal(err)
	}
	root := string(pages["aipwatch.1"])
	for _, want := range []string{
		".SH EXIT STATUS\n0 verified, 1 error (could not follow), 2 usage, 3 partial, 4 failed, 5 truncated, 6 incomplete, 7 cancelled, 8 pending",
		".SH ENVIRONMENT\n", `\fBAIP_URL\fR`, `\fBAIP_TOKEN_FILE\fR`, `\fBAIP_TOKEN\fR`, `\fBAIPWATCH_CONTEXT\fR`, `\fBNO_COLOR\fR`,
		".SH FILES\n", "/aipwatch/config.toml", "/aipwatch/submissions.jsonl",
		".SH EXAMPLES\n.TP\n\\fBaipwatch \\-\\-demo\\fR\ntry it on the built\\-in simulator\n",
		".TP\n\\fB\\-\\-cursor CURSOR\\fR\n", ".TP\n\\fB\\-\\-cancel\\fR\n",
	} {
		if !strings.Contains(root, want) {
			t.Errorf("aipwatch.1 lacks %q", want)
		}
	}
	if n := strings.Count(root, "cancelled by an operator from aipwatch"); n != 1 {
		t.Errorf("--reason's default %d times, want once", n)
	}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if c.HasParent() && !c.IsAvailableCommand() {
			return
		}
		name := manName(c) + ".1"
		page := string(pages[name])
		if page == "" {
			t.Errorf("no page %s", name)
		}
		for _, bad := range []string{"=false", `=""`, "[=0]"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s holds %q", name, bad)
			}
		}
		if !strings.Contains(page, ".SH EXAMPLES\n") {
			t.Errorf("%s has no EXAMPLES", name)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			n := roff("--" + f.Name)
			if !f.Hidden && !strings.Contains(page, `\fB`+n) && !strings.Contains(page, ", "+n) {
				t.Errorf("%s lacks --%s", name, f.Name)
			}
		})
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(cli.Tree())
}
