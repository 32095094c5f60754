package cli

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
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

// completionTimeout bounds the daemon read of an ID completion: a shell
// waits on it.
const completionTimeout = time.Second

// completionRows is how many of the most recently updated actions an ID
// completion offers.
const completionRows = 50

var shells = []string{"bash", "zsh", "fish", "powershell"}

func completionCommand(e *runEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "print a shell completion script: bash, zsh, fish or powershell",
		Long: "Print the completion script of SHELL on stdout. It completes commands, flags, " +
			"context names, states, output modes, demo scenarios and action IDs (the chosen " +
			"daemon's most recent ones and this machine's journal's, read within 1 s).",
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
				err = root.GenBashCompletionV2(w, true)
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

// addCompletions registers the dynamic values of the tree's flags and
// arguments.
func addCompletions(root *cobra.Command, e *runEnv, g *globalFlags) {
	words := func(list []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return list, cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = root.RegisterFlagCompletionFunc("context", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return contextNames(filesOf(g.cf, e.getenv)), cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.RegisterFlagCompletionFunc("output", words(outputModes))
	_ = root.RegisterFlagCompletionFunc("demo", words(rootDemos()))
	// ids completes up to most action IDs, never one already given.
	ids := func(most int) cobra.CompletionFunc {
		return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
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
		}
	}
	root.ValidArgsFunction = ids(split.MaxPanes) // several split (design §12)
	_ = root.RegisterFlagCompletionFunc("notify-on", completeVerdicts)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "reconcile":
			c.ValidArgsFunction = ids(1)
		case "ls":
			_ = c.RegisterFlagCompletionFunc("state", words(model.LifecycleStates))
			_ = c.RegisterFlagCompletionFunc("demo", words([]string{demoConsole}))
			_ = c.RegisterFlagCompletionFunc("verdict", completeVerdicts)
		case "stats":
			_ = c.RegisterFlagCompletionFunc("demo", words([]string{demoConsole}))
		case "submit":
			_ = c.RegisterFlagCompletionFunc("demo", words(append(sim.Scenarios(), demoFleetChat)))
			_ = c.RegisterFlagCompletionFunc("mode", words([]string{"async", "sync", "streaming"}))
		case "contexts":
			for _, use := range c.Commands() {
				use.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
					if len(args) > 0 {
						return nil, cobra.ShellCompDirectiveNoFileComp
					}
					return contextNames(filesOf(g.cf, e.getenv)), cobra.ShellCompDirectiveNoFileComp
				}
			}
		}
	}
}

// contextNames are the config file's contexts (none when it cannot be read).
func contextNames(fs *invocationFiles) []string {
	f, err := fs.config()
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
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if strings.HasPrefix(id, "act_") && !seen[id] {
			seen[id] = true
			out = append(out, safe.Line(id))
		}
	}
	if client, err := c.quietDaemon(); err == nil {
		for _, id := range recentIDs(client) {
			add(id)
		}
	}
	for _, id := range journalIDs(e.getenv, c.url, nil) {
		add(id)
	}
	return out
}

// recentIDs are the daemon's most recently updated actions, newest first:
// one read of the list's tail within completionTimeout (none when the
// daemon does not answer in time).
func recentIDs(client *stream.Client) []string {
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
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
