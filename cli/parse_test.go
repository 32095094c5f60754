package cli

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// parse is the follow's options as the root command decides them from
// args and the environment, without running anything.
func parse(args []string, _ io.Writer, getenv func(string) string) (*options, *cobra.Command, error) {
	var got *options
	var out, errb bytes.Buffer
	e := &runEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv, args: args,
		parsed: func(o *options) { got = o }}
	root := newRoot(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil && got == nil {
		err = errors.New("not a follow: " + cmd.CommandPath())
	}
	return got, cmd, err
}
