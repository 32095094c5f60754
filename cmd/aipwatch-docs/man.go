package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// The man pages are each command's --help, section by section (helpOf:
// the help an operator sees, so a page says nothing the help does not, and
// shows each flag as the help does: `--cursor CURSOR`, `--cancel`, its
// default once), in man's sections: the help's paragraphs are the
// DESCRIPTION, its Usage the SYNOPSIS, its Flags the OPTIONS, its exit
// codes the EXIT STATUS, its Examples the EXAMPLES. The root's page adds
// what the help leaves to the README: ENVIRONMENT and FILES.

// writeMan writes the man pages into dir, one a command (man -l
// bin/man/aipwatch.1).
func writeMan(dir string) error {
	pages, err := manPages()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, page := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), page, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// manPages are the man pages by file name (aipwatch-contexts-use.1), of
// the commands the help shows.
func manPages() (map[string][]byte, error) {
	return pagesOf(func(c *cobra.Command) (string, []byte, error) {
		page, err := manPage(c)
		return manName(c) + ".1", page, err
	})
}

// manName is a command's page name: aipwatch-contexts-use.
func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// helpBlock is a part of the help: a section ("Flags:" and its indented
// entries) or a paragraph.
type helpBlock struct {
	title   string      // the section's title without its colon; "" for a paragraph
	entries []helpEntry // a section's
	text    string      // a paragraph's, its lines joined
}

// helpEntry is one indented entry of a section: a flag, a command, a
// usage line, an example, with what the help says of it.
type helpEntry struct{ name, desc string }

// parseHelp splits help into its blocks: a blank line ends one; a block
// whose first line ends with ':' and whose other lines are indented is a
// section, anything else a paragraph.
func parseHelp(help string) []helpBlock {
	var blocks []helpBlock
	for _, chunk := range strings.Split(strings.TrimSpace(help), "\n\n") {
		lines := strings.Split(chunk, "\n")
		if len(lines) > 1 && strings.HasSuffix(lines[0], ":") && strings.HasPrefix(lines[1], "  ") {
			b := helpBlock{title: strings.TrimSuffix(lines[0], ":")}
			for _, l := range lines[1:] {
				body := strings.TrimLeft(l, " ")
				if indent := len(l) - len(body); indent <= 2 || len(b.entries) == 0 {
					name, desc, _ := strings.Cut(body, "  ")
					b.entries = append(b.entries, helpEntry{name: name, desc: strings.TrimSpace(desc)})
				} else {
					e := &b.entries[len(b.entries)-1]
					e.desc = strings.TrimSpace(e.desc + " " + body)
				}
			}
			blocks = append(blocks, b)
			continue
		}
		blocks = append(blocks, helpBlock{text: strings.Join(lines, " ")})
	}
	return blocks
}

// manPage is c's page: its help in man's sections.
func manPage(c *cobra.Command) ([]byte, error) {
	help, err := helpOf(c)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	name := manName(c)
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"aipwatch\" \"aipwatch manual\"\n", strings.ToUpper(name))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(name), roff(c.Short))
	blocks := parseHelp(help)
	section := func(title string, entries []helpEntry, note string) {
		fmt.Fprintf(&b, ".SH %s\n", title)
		if note != "" {
			fmt.Fprintf(&b, "%s\n", roff(note))
		}
		for _, e := range entries {
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n", roff(e.name))
			if e.desc != "" {
				fmt.Fprintf(&b, "%s\n", roff(e.desc))
			}
		}
	}
	for _, bl := range blocks {
		if bl.title == "Usage" {
			section("SYNOPSIS", bl.entries, "")
		}
	}
	b.WriteString(".SH DESCRIPTION\n")
	first := true
	var exit string
	for _, bl := range blocks {
		if bl.title != "" {
			continue
		}
		if rest, ok := strings.CutPrefix(bl.text, "Exit codes: "); ok {
			exit = rest
			continue
		}
		if !first {
			b.WriteString(".PP\n")
		}
		first = false
		fmt.Fprintf(&b, "%s\n", roff(bl.text))
	}
	for _, bl := range blocks {
		title, note, _ := strings.Cut(bl.title, " (")
		if note != "" {
			note = "(" + note
		}
		switch title {
		case "", "Usage", "Examples":
		case "Flags":
			section("OPTIONS", bl.entries, note)
		case "Global flags":
			section("GLOBAL OPTIONS", bl.entries, note)
		default:
			section(strings.ToUpper(title), bl.entries, note)
		}
	}
	if exit != "" {
		fmt.Fprintf(&b, ".SH EXIT STATUS\n%s\n", roff(exit))
	}
	if !c.HasParent() {
		b.WriteString(rootSections)
	}
	for _, bl := range blocks {
		if bl.title == "Examples" {
			section("EXAMPLES", bl.entries, "")
		}
	}
	var see []string
	if c.HasParent() {
		see = append(see, manName(c.Parent()))
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			see = append(see, manName(sub))
		}
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, s := range see {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, ".BR %s (1)", roff(s))
		}
		b.WriteString("\n")
	}
	return b.Bytes(), nil
}

// rootSections are the root page's ENVIRONMENT and FILES: what the help
// says of each in passing, together (design §1, §6.2, §9).
var rootSections = ".SH ENVIRONMENT\n" + manEntries([]helpEntry{
	{"AIP_URL", "the base URL of aipd when --url is not given (else the context's, else http://127.0.0.1:8080)."},
	{"AIP_TOKEN_FILE", "the file holding the bearer token when --token-file is not given; else $GETAIP_NATIVE_BEARER_TOKEN_FILE."},
	{"AIP_TOKEN", "the bearer token itself, when no token file is given by a flag or a variable."},
	{"AIPWATCH_CONTEXT", "the config file's context to use when --context is not given (else the file's current)."},
	{"AIP_ACTION_ID", "the action to follow when no ACTION_ID is given."},
	{"NO_COLOR", "set to anything: no colour, as --no-color."},
	{"XDG_CONFIG_HOME, XDG_STATE_HOME", "where the config file and the journal live (FILES)."},
}) + ".SH FILES\n" + manEntries([]helpEntry{
	{"$XDG_CONFIG_HOME/aipwatch/config.toml", "the config file's contexts (else ~/.config/aipwatch/config.toml): see aipwatch-contexts(1)."},
	{"$XDG_STATE_HOME/aipwatch/submissions.jsonl", "the journal of submissions and reconcile reads, mode 0600 (else ~/.local/state/aipwatch/submissions.jsonl): see aipwatch-submit(1)."},
})

// manEntries are entries as man's tagged paragraphs.
func manEntries(es []helpEntry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", roff(e.name), roff(e.desc))
	}
	return b.String()
}

// roff is text as roff shows it: a backslash escaped, a hyphen a minus
// (flags are typed as they read), and no line read as a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
