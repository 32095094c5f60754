package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpWidth is the width --help fits in: an 80-column terminal.
const helpWidth = 80

// helpFlagCol is where a flag's description starts.
const helpFlagCol = 26

// demoHelp describes the demo scenarios for an operator, in the words of
// what they show rather than how the simulator builds them (sim.Describe).
// A test keeps it complete.
var demoHelp = map[string]string{
	"chat-tools":          "a Chat turn with two tools: verified (the default)",
	"chat-length":         "a Chat turn cut by the output limit: partial",
	"chat-error":          "a Chat turn whose model failed: failed, with the error",
	"chat-crash":          "a Chat turn whose writer crashed without an error: failed",
	"chat-unterminated":   "the upstream closes mid-sentence: incomplete",
	"chat-truncated":      "the last frame lands on the event limit: truncated",
	"responses-tools":     "a Responses turn with two function calls: verified",
	"responses-failed":    "a Responses turn the provider fails (HTTP 502): failed",
	"long":                "streams until you cancel it (c in the TUI, or --cancel)",
	"late-cancel":         "a cancel sent at once lands after the turn: too late",
	"firehose":            "100,000 deltas as fast as possible, for performance",
	"async-long":          "long, submitted async: queued, running, then cancelled",
	"async-dead-lettered": "a failed Responses turn submitted async: failed",
	"postgres":            "a daemon that refuses its own cursors: verified",
	"sync-handler-failed": "a sync turn whose handler dies: incomplete, no result",
	"console":             "the console on a simulated daemon with several actions",
	"fleet":               "the console across two simulated daemons (contexts); one stops after 45 s",
	demoFleetChat:         "the Chat turn on the released deployment (a connector host): followed async, no live chunk, read from its result; submitted, streaming live",
}

// helpAfter is the annotation naming what a command's help shows after
// its flags (before the examples): helpAfterRoot or helpAfterSubmit.
const helpAfter = "help-after"

const (
	helpAfterRoot   = "root"
	helpAfterSubmit = "submit-demos"
)

// rootLong is the root's help before its flags.
const rootLong = `aipwatch follows one AIP action live, lets you cancel it, and ends on a
verified verdict. Quitting never cancels the action: it prints the command
that resumes.`

// rootUsage are the ways to call the root.
const rootUsage = `  aipwatch [flags] ACTION_ID   follow one action: live, or review once finished
  aipwatch [flags] ID1 ID2 …   up to four at once: split panes on a terminal
  aipwatch [flags]             on a terminal: the console (a live action list)
  aipwatch COMMAND [flags]     one of the commands below
  aipwatch --demo[=SCENARIO]   follow a scripted action on a built-in simulator
  aipwatch --replay FILE       review a recording made with --record, offline

ACTION_ID may also come from $AIP_ACTION_ID; it must start with act_.
CONTEXT/act_… follows an action of the config file's context CONTEXT. With
several, the exit code is 0 when all are verified, else the first other's.
`

// rootExamples end the root's help.
const rootExamples = `  aipwatch --demo                          try it on the built-in simulator
  aipwatch act_0123456789                  follow live (review if finished)
  aipwatch --output jsonl act_0123 | jq .  for scripts: the last line is the
                                           verdict object
`

// writeHelp is every command's --help: what it does, how to call it, its
// commands, its flags, the global flags, then its examples. Every line
// fits helpWidth columns.
func writeHelp(c *cobra.Command, w io.Writer) {
	root := !c.HasParent()
	if root {
		fmt.Fprintf(w, "%s\n\nUsage:\n%s", rootLong, rootUsage)
	} else {
		long := c.Long
		if long == "" {
			long = c.Short
		}
		writeWrapped(w, "", long, 0)
		fmt.Fprintf(w, "\nUsage:\n  %s\n", c.UseLine())
		if len(c.Aliases) > 0 {
			fmt.Fprintf(w, "  (also: %s)\n", strings.Join(c.Aliases, ", "))
		}
	}
	if cmds := c.Commands(); len(cmds) > 0 {
		fmt.Fprint(w, "\nCommands:\n")
		for _, sub := range cmds {
			if sub.IsAvailableCommand() {
				writeWrapped(w, fmt.Sprintf("  %-*s", helpFlagCol-2, sub.Name()), sub.Short, helpFlagCol)
			}
		}
	}
	global := c.Root().PersistentFlags()
	local := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	local.SortFlags = false
	c.Flags().VisitAll(func(f *pflag.Flag) { // in the order they were added
		if global.Lookup(f.Name) == nil {
			local.AddFlag(f)
		}
	})
	if local.HasAvailableFlags() {
		fmt.Fprint(w, "\nFlags:\n"+flagHelp(local))
	}
	fmt.Fprint(w, "\nGlobal flags (before or after the command):\n"+flagHelp(global))
	switch c.Annotations[helpAfter] {
	case helpAfterRoot:
		fmt.Fprint(w, "\nDemo scenarios (--demo=NAME):\n")
		demoScenarios(w, rootDemos())
		fmt.Fprint(w, `
Exit codes: 0 verified, 1 error (could not follow), 2 usage, 3 partial,
4 failed, 5 truncated, 6 incomplete, 7 cancelled, 8 pending (stopped first).
`)
	case helpAfterSubmit:
		fmt.Fprint(w, "\nDemo scenarios (submit --demo=NAME):\n")
		demoScenarios(w, submitDemos())
	}
	if root {
		fmt.Fprint(w, "\nExamples:\n"+rootExamples)
	} else if c.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(c.Example, "\n"))
	}
}

func demoScenarios(w io.Writer, names []string) {
	for _, s := range names {
		writeWrapped(w, fmt.Sprintf("  %-20s ", s), demoHelp[s], 23)
	}
}

// flagHelp lists the flags in their order, each "--name ARG" then its
// description wrapped at helpWidth: no pflag type names, no
// [=true|false] on booleans, a value name in capitals unless it is the
// one value the flag takes.
func flagHelp(fs *pflag.FlagSet) string {
	var b strings.Builder
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		arg, desc := pflag.UnquoteUsage(f)
		head := "  "
		if f.Shorthand != "" {
			head += "-" + f.Shorthand + ", "
		}
		head += "--" + f.Name
		switch {
		case f.Value.Type() == "bool":
		case f.NoOptDefVal != "" && arg == f.NoOptDefVal:
			// The value named is the one the flag takes (ls --demo's
			// console): a literal, shown as it is typed.
			head += "[=" + arg + "]"
		case f.NoOptDefVal != "":
			head += "[=" + strings.ToUpper(arg) + "]"
		default:
			head += " " + strings.ToUpper(arg)
		}
		if len(head) >= helpFlagCol-1 {
			b.WriteString(head + "\n")
			head = ""
		}
		writeWrapped(&b, fmt.Sprintf("%-*s", helpFlagCol, head), desc, helpFlagCol)
	})
	return b.String()
}

// writeWrapped writes first then text wrapped at helpWidth, continuation
// lines indented by indent spaces. A newline in text starts a new line.
func writeWrapped(w io.Writer, first, text string, indent int) {
	line := first
	empty := true
	flush := func() {
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		line, empty = strings.Repeat(" ", indent), true
	}
	for i, para := range strings.Split(text, "\n") {
		if i > 0 {
			flush()
		}
		for _, word := range strings.Fields(para) {
			if !empty && len([]rune(line))+1+len([]rune(word)) > helpWidth {
				flush()
			}
			if !empty {
				line += " "
			}
			line += word
			empty = false
		}
	}
	flush()
}
