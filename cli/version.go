package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set with -ldflags "-X main.version=…"; else the module
// version, else "dev" with the commit the binary was built from.
var version = ""

var readBuildInfo = debug.ReadBuildInfo // a variable for tests

// buildVCS is the version control information the go command stamped
// into the binary (go build and go install in a git checkout do; go run
// does not).
type buildVCS struct {
	revision, time string
	modified       bool
}

func vcsInfo() (buildVCS, bool) {
	bi, ok := readBuildInfo()
	if !ok {
		return buildVCS{}, false
	}
	var v buildVCS
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.revision = s.Value
		case "vcs.time":
			v.time = s.Value
		case "vcs.modified":
			v.modified = s.Value == "true"
		}
	}
	return v, v.revision != ""
}

// versionString is the short version, in records, exports and --version:
// the release, or "dev-<commit>" (with "-dirty" for uncommitted changes).
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := readBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	v, ok := vcsInfo()
	if !ok {
		return "dev"
	}
	s := "dev-" + v.revision[:min(12, len(v.revision))]
	if v.modified {
		s += "-dirty"
	}
	return s
}

// versionText is what --version prints: the version, then the commit and
// its time, and the Go that built it.
func versionText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "aipwatch %s\n", versionString())
	if v, ok := vcsInfo(); ok {
		fmt.Fprintf(&b, "commit %s", v.revision)
		if v.time != "" {
			fmt.Fprintf(&b, " (%s)", v.time)
		}
		if v.modified {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("commit unknown (not stamped: go run, -buildvcs=false, or a git worktree)\n")
	}
	fmt.Fprintf(&b, "built with %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// versioned runs fn unless --version was given, which prints the version
// and nothing else (no request) on every command.
func versioned(e *runEnv, g *globalFlags, fn func(c *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if g.version {
			fmt.Fprint(e.stdout, versionText())
			return nil
		}
		if err := g.checkValues(); err != nil {
			return err
		}
		return fn(c, args)
	}
}

func versionCommand(e *runEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version, the commit and the Go that built aipwatch",
		Args:  noArgs,
		Example: `  aipwatch version
  aipwatch --version          the same, on any command (aipwatch ls --version)`,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprint(e.stdout, versionText())
			return nil
		},
	}
}
