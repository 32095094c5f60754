// Command aipwatch-man writes aipwatch's man pages into a directory, one a
// command, generated from the command tree itself (cli.Tree): `make man`.
// The tree is the one every invocation runs, so the pages cannot say what
// the program does not.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra/doc"

	"aipwatch/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: aipwatch-man DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	root := cli.Tree()
	root.DisableAutoGenTag = true // the same tree gives the same pages
	header := &doc.GenManHeader{Title: "AIPWATCH", Section: "1", Source: "aipwatch", Manual: "aipwatch manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
