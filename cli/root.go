package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/run"
	"aipwatch/safe"
)

// The command tree (design §11): the root follows one action (or opens the
// console), and each verb is a subcommand with its own flags. The global
// flags are persistent: accepted before or after the verb, the way gh and
// kubectl take them. A word that starts with act_ is an action ID, any
// other word a verb; an unknown verb is a usage error that suggests the
// nearest one.

// runEnv is one invocation: the process's streams and environment, the
// key maps, and the exit code the command chose.
type runEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	keys   Keys
	args   []string // as given, for jsonl usage errors
	code   int

	// parsed, when set, receives what the follow decided instead of
	// running it (the tests' parse).
	parsed func(*follow)
	// completionBound, when set, bounds an ID completion's read instead
	// of completionTimeout (tests whose daemon must answer, on a loaded
	// machine).
	completionBound time.Duration
}

// globalFlags are the persistent flags every command takes.
type globalFlags struct {
	cf      connFlags
	output  string
	noColor bool
	redact  bool
	version bool
}

func addGlobalFlags(fs *pflag.FlagSet, g *globalFlags) {
	fs.SortFlags = false
	fs.StringVar(&g.cf.url, "url", "", "base `URL` of aipd, with http:// or https:// (default $AIP_URL, else http://127.0.0.1:8080)")
	fs.StringVar(&g.cf.context, "context", "", "use the config file's context `NAME` for --url, --token-file, --cacert (default $AIPWATCH_CONTEXT, else the file's current; see aipwatch contexts)")
	fs.StringVar(&g.cf.tokenFile, "token-file", "", "`FILE` holding the bearer token (default $AIP_TOKEN_FILE, else $GETAIP_NATIVE_BEARER_TOKEN_FILE, else the token itself in $AIP_TOKEN; none: no Authorization header)")
	fs.StringVar(&g.cf.cacert, "cacert", "", "PEM `FILE` of the private CA that signed aipd's certificate")
	fs.BoolVar(&g.cf.allowInsecureHTTP, "allow-insecure-http", false, "allow plain http:// to a host that is not loopback (the token then crosses the network in clear)")
	fs.StringVarP(&g.output, "output", "o", "", "`MODE`: "+strings.Join(outputModes, ", ")+" (default tui on a terminal, else plain)")
	fs.BoolVar(&g.redact, "redact", false, "mask prompts, outputs, tool arguments and results, provider IDs and error details")
	fs.BoolVar(&g.noColor, "no-color", false, "no colour (also when NO_COLOR is set or the output is not a terminal)")
	fs.BoolVar(&g.version, "version", false, "print the version and exit")
}

var outputModes = []string{"tui", "plain", "jsonl"}

// checkValues refuses a value aipwatch can check before any request.
func (g *globalFlags) checkValues() error {
	if g.output != "" && !slices.Contains(outputModes, g.output) {
		return output.UsageError(fmt.Sprintf("--output must be %s, not %q", strings.Join(outputModes, ", "), g.output))
	}
	return nil
}

// newRoot builds the tree for one invocation.
func newRoot(e *runEnv) *cobra.Command {
	g := &globalFlags{cf: connFlags{files: newInvocationFiles(e.getenv)}}
	root := &cobra.Command{
		Use:         "aipwatch [flags] [ACTION_ID...]",
		Short:       "follow one AIP action live, cancel it, end on a verified verdict",
		Long:        rootLong,
		Annotations: map[string]string{helpAfter: helpAfterRoot},
		// Any word reaches RunE, which tells an action ID from a verb.
		Args:                       cobra.ArbitraryArgs,
		SilenceErrors:              true,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: 2,
		CompletionOptions:          cobra.CompletionOptions{DisableDefaultCmd: true}, // completion.go's
	}
	addGlobalFlags(root.PersistentFlags(), g)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetIn(e.stdin)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return output.UsageError(withNearestFlag(c, err.Error())) })
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c, c.OutOrStdout()) })
	root.SetUsageFunc(func(c *cobra.Command) error { writeHelp(c, c.OutOrStdout()); return nil })
	addFollow(root, e, g)
	root.AddCommand(
		submitCommand(e, g),
		lsCommand(e, g),
		reconcileCommand(e, g),
		contextsCommand(e, g),
		versionCommand(e),
		completionCommand(e),
		statsCommand(e, g),
		serveCommand(e, g),
	)
	addCompletions(root, e, g)
	root.InitDefaultHelpCmd()
	if h, _, err := root.Find([]string{"help"}); err == nil && h != root {
		h.Short, h.Long = "the help of a command: aipwatch help ls is aipwatch ls --help", ""
		h.Example = "  aipwatch help ls\n  aipwatch help contexts use"
	}
	everyCommand(root, func(c *cobra.Command) {
		// The help flag of every command, in the tree's words, last of its flags.
		c.Flags().BoolP("help", "h", false, "show this help")
	})
	return root
}

func everyCommand(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		everyCommand(sub, fn)
	}
}

// noArgs refuses any argument: a command's filters are flags.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return output.UsageError(fmt.Sprintf("%s takes no arguments, not %q", c.Name(), args[0]))
	}
	return nil
}

// unknownVerb is the usage error of a word that is neither a verb of root
// (the tree's, or a command's own) nor an action ID, with the nearest verbs.
func unknownVerb(root *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q", word)
	if !root.HasParent() {
		msg += " (an ACTION_ID starts with act_)"
	}
	if s := root.SuggestionsFor(word); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return output.UsageError(msg)
}

// withNearestFlag adds the nearest flag of c to pflag's "unknown flag:
// --stat" (did you mean --state?): one within two edits, or the one the
// word begins.
func withNearestFlag(c *cobra.Command, msg string) string {
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok || name == "" {
		return msg
	}
	best, bestD := "", 3
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	if best == "" {
		return msg
	}
	return msg + "; did you mean --" + best + "?"
}

// editDistance is the Levenshtein distance of a and b, in bytes (flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// usageExit reports a usage error of cmd (exit 2): on stderr with the
// command that failed, or as the jsonl error object on stdout when the
// invocation asked for jsonl (a script reads one object a line).
func (e *runEnv) usageExit(cmd *cobra.Command, err error) int {
	if wantsJSONL(e.args) {
		output.WriteError(e.stdout, output.UsageError(err.Error()))
		return model.ExitUsage
	}
	path := "aipwatch"
	if cmd != nil && cmd.HasParent() {
		path = "aipwatch " + strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	}
	fmt.Fprintf(e.stderr, "%s: %s\n(see %s --help)\n", path, safe.Line(err.Error()), path)
	return model.ExitUsage
}

// exit sets the command's exit code: a failure that is not a usage error
// has been reported already.
func (e *runEnv) exit(code int) error {
	e.code = code
	return nil
}

// fail is run.Fail under the output mode given, as the command's exit.
func (e *runEnv) fail(mode string, err error) error {
	return e.exit(run.Fail(run.IO{Stdout: e.stdout, Stderr: e.stderr}, mode == "jsonl", err))
}

func wantsJSONL(args []string) bool {
	for i, a := range args {
		if a == "--output=jsonl" || a == "-ojsonl" || a == "-o=jsonl" || ((a == "--output" || a == "-o") && i+1 < len(args) && args[i+1] == "jsonl") {
			return true
		}
	}
	return false
}

// Tree is the command tree as documentation sees it (the man pages of
// cmd/aipwatch-docs): the same commands and flags every invocation runs,
// with no environment (paths read as their variables).
func Tree() *cobra.Command {
	return newRoot(&runEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		getenv: func(string) string { return "" }})
}
