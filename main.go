// Command aipwatch follows one AIP action: live while it runs, with a key
// to cancel it, and ends on a verified verdict (docs/design.md). The
// commands live in cli/; this file wires them to the process, and
// keymap.go holds every key binding.
package main

import (
	"os"

	"aipwatch/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv,
		cli.Keys{Live: keyMap(), Console: consoleKeyMap()}))
}
