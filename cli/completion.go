package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"aipwatch/config"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/submit"
	"aipwatch/ui/split"
)

// Shell completion (design §11): `aipwatch completion SHELL` prints the
// script; the script asks the binary (cobra's hidden __complete command)
// for the words that fit, which are dynamic where it helps: the config
// file's contexts, AIP's states, the output modes, the demo scenarios,
// and action IDs from the chosen daemon's recent list and this machine's
// journal. An ID costs one bounded read of the list's tail (at most
// completionTimeout; one request when the list is short, two when the
// first must say where it ends: stream.ReadTail), never its history.

const (
	completionTimeout = time.Second // bounds an ID completion's read: a shell waits on it
	completionRows    = 50          // the most recently updated actions an ID completion offers
)

var shells = []string{"bash", "zsh", "fish", "powershell"}

func completionCommand(e *runEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "print a shell completion script: bash, zsh, fish or powershell",
		Long: "Print the completion script of SHELL on stdout. It completes commands, flags, " +
			"context names, states, output modes, demo scenarios and action IDs (the chosen " +
			"daemon's most recent ones and this machine's journal's, read within 1 s). The bash " +
			"script works with or without the bash-completion package.",
		Example: `  source <(aipwatch completion bash)
  aipwatch completion zsh > "${fpath[1]}/_aipwatch"
  aipwatch completion fish > ~/.config/fish/completions/aipwatch.fish`,
		ValidArgs: shells,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 || !slices.Contains(shells, args[0]) {
				return output.UsageError("completion takes one shell: " + strings.Join(shells, ", "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			// The script is aipwatch's own text, not the daemon's: written
			// as it is (a terminal writer would show its escapes).
			w := safe.Unwrap(e.stdout)
			root := c.Root()
			var err error
			switch args[0] {
			case "bash":
				err = writeBashCompletion(w, root)
			case "zsh":
				err = root.GenZshCompletion(w)
			case "fish":
				err = root.GenFishCompletion(w, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(w)
			}
			if err != nil {
				return e.fail("", err)
			}
			return nil
		},
	}
}

// writeBashCompletion writes cobra's bash script (V2), made to work without
// the bash-completion package (minimal images lack it): the script reads
// the line's words with that package's _get_comp_words_by_ref, and failed
// on every Tab where it is not defined. Where it is not, the words are
// read from the line up to the cursor, split at blanks only (as the -n =:
// the script asks for: '=' and ':' do not split a word).
func writeBashCompletion(w io.Writer, root *cobra.Command) error {
	var b bytes.Buffer
	if err := root.GenBashCompletionV2(&b, true); err != nil {
		return err
	}
	const call = "    _get_comp_words_by_ref \"$@\" cur prev words cword\n"
	script := b.String()
	if strings.Count(script, call) != 1 {
		return errors.New("completion bash: cobra's script reads its words another way: update writeBashCompletion")
	}
	script = strings.Replace(script, call, bashWordsFallback, 1)
	_, err := io.WriteString(w, script)
	return err
}

// bashWordsFallback replaces the script's one call of the bash-completion
// package's _get_comp_words_by_ref (in the function that stands for the
// package's _init_completion): the package's when it is there, else the
// line's words up to the cursor, split at blanks.
const bashWordsFallback = `    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    # No bash-completion package (aipwatch's fallback): the words of the
    # line up to the cursor, split at blanks only.
    local line=${COMP_LINE:0:COMP_POINT}
    read -r -a words <<<"$line"
    if [[ ${#words[@]} -eq 0 || $line == *[[:blank:]] ]]; then
        words+=("")
    fi
    cword=$((${#words[@]} - 1))
    cur=${words[cword]}
    prev=
    if ((cword > 0)); then
        prev=${words[cword - 1]}
    fi
`

// addCompletions registers the dynamic values of the tree's flags and
// arguments. Every answer passes safe.Completions (design §11: shell
// words only, bounded).
func addCompletions(root *cobra.Command, e *runEnv, g *globalFlags) {
	words := func(list []string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return list, cobra.ShellCompDirectiveNoFileComp
		}
	}
	flag := func(c *cobra.Command, name string, fn cobra.CompletionFunc) {
		_ = c.RegisterFlagCompletionFunc(name, guarded(fn))
	}
	flag(root, "context", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return contextNames(filesOf(g.cf, e.getenv)), cobra.ShellCompDirectiveNoFileComp
	})
	flag(root, "output", words(outputModes))
	flag(root, "demo", words(rootDemos()))
	// ids completes up to most action IDs, never one already given.
	ids := func(most int) cobra.CompletionFunc {
		return guarded(func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) >= most {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, id := range actionIDs(e, g) {
				if !slices.Contains(args, id) {
					out = append(out, id)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		})
	}
	root.ValidArgsFunction = ids(split.MaxPanes) // several split (design §12)
	flag(root, "notify-on", completeVerdicts)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "reconcile":
			c.ValidArgsFunction = ids(1)
		case "ls":
			flag(c, "state", words(model.LifecycleStates))
			flag(c, "demo", words([]string{demoConsole}))
			flag(c, "verdict", completeVerdicts)
		case "stats":
			flag(c, "demo", words([]string{demoConsole}))
		case "submit":
			flag(c, "demo", words(submitDemos()))
			flag(c, "mode", words([]string{submit.ModeAsync, submit.ModeSync, submit.ModeStreaming}))
		case "contexts":
			for _, use := range c.Commands() {
				use.ValidArgsFunction = guarded(func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
					if len(args) > 0 {
						return nil, cobra.ShellCompDirectiveNoFileComp
					}
					return contextNames(filesOf(g.cf, e.getenv)), cobra.ShellCompDirectiveNoFileComp
				})
			}
		}
	}
}

// guarded is fn whose answer is only what safe.Completions lets a shell
// have.
func guarded(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, typed string) ([]string, cobra.ShellCompDirective) {
		words, directive := fn(c, args, typed)
		return safe.Completions(words), directive
	}
}

// completionArgs are the words of cobra's completion request (__complete)
// as cobra is given them: each safe.Line'd. Cobra writes a word it cannot
// parse (an unknown flag, a bad value) into a debug line on the process's
// stderr itself, around aipwatch's writer; a word with a control
// character completes to nothing anyway. Other invocations' words are
// left as they are.
func completionArgs(args []string) []string {
	if len(args) == 0 || (args[0] != cobra.ShellCompRequestCmd && args[0] != cobra.ShellCompNoDescRequestCmd) {
		return args
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = safe.Line(a)
	}
	return out
}

// contextNames are the config file's contexts (none when it cannot be read).
func contextNames(fs *config.Files) []string {
	f, err := fs.Config()
	if err != nil || f == nil {
		return nil
	}
	return f.Names()
}

// actionIDs are the IDs a completion offers: the chosen daemon's most
// recently updated actions, newest first (one bounded read of the list's
// tail), then this machine's journal's for that daemon. A daemon that does
// not answer in time offers the journal's only.
func actionIDs(e *runEnv, g *globalFlags) []string {
	c := newConn(g.cf, true, e.getenv)
	var recent []string
	if client, err := c.quietDaemon(); err == nil {
		bound := completionTimeout
		if e.completionBound > 0 {
			bound = e.completionBound
		}
		recent = recentIDs(client, bound)
	}
	return safe.CompletionIDs(recent, journalIDs(e.getenv, c.url, nil))
}

// recentIDs are the daemon's most recently updated actions, newest first:
// one read of the list's tail within bound (none when it does not answer).
func recentIDs(client *stream.Client, bound time.Duration) []string {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	tail, err := client.ReadTail(ctx, stream.ListQuery{}, completionRows, 0)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(tail.Rows))
	for i := len(tail.Rows) - 1; i >= 0; i-- { // the tail is oldest first
		ids = append(ids, tail.Rows[i].ActionID)
	}
	return ids
}
