// Command aipwatch-docs writes aipwatch's reference from the code itself,
// so it cannot say what the program does not:
//
//	aipwatch-docs docs DIR   docs/commands/*.md, one page a command with
//	                         exactly what its --help prints, from the command
//	                         tree every invocation runs (cli.Tree), and
//	                         docs/keys.md, every key binding and help text,
//	                         read from keymap.go (internal/keysrc): make docs
//	aipwatch-docs man DIR    the man pages, one a command, from the same
//	                         tree: make man
//
// It runs from the repository's root (keymap.go is read there) and is not
// part of the shipped binary. main_test.go regenerates the docs and fails
// when the committed files differ.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "docs" && os.Args[1] != "man") {
		fmt.Fprintln(os.Stderr, "usage: aipwatch-docs docs|man DIR  (make docs, make man)")
		os.Exit(2)
	}
	var err error
	if os.Args[1] == "man" {
		err = writeMan(os.Args[2])
	} else {
		var files map[string][]byte
		if files, err = generate("keymap.go"); err == nil {
			err = write(os.Args[2], files)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "aipwatch-docs:", err)
		os.Exit(1)
	}
}
