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
func parse(args []string, _ io.Writer, getenv func(string) string) (*follow, *cobra.Command, error) {
	var got *follow
	var out, errb bytes.Buffer
	e := &runEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv, args: args,
		parsed: func(o *follow) { got = o }}
	root := newRoot(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil && got == nil {
		err = errors.New("not a follow: " + cmd.CommandPath())
	}
	return got, cmd, err
}

// resumeCommand is the command that resumes the follow's one action from
// cursor.
func resumeCommand(o *follow, cursor string) string {
	return o.w.resume(cursor, o.targets[0].arg)
}

// tokenConn is the connection to url with token from $AIP_TOKEN, made as
// every command makes it (newConn protects its token).
func tokenConn(url, token string) conn {
	return newConn(connFlags{url: url}, false, func(k string) string {
		if k == "AIP_TOKEN" {
			return token
		}
		return ""
	})
}

// oneFollow is the follow of act_1 on c with the flags f and r.
func oneFollow(c conn, f followFlags, r runFlags) *follow {
	return &follow{w: watch{conn: c, r: r}, f: f, targets: []target{{arg: "act_1", id: "act_1", conn: c}}}
}
