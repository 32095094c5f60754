package main

import (
	"os"

	"github.com/spf13/cobra/doc"

	"aipwatch/cli"
)

// writeMan writes the man pages into dir, one a command (man -l
// bin/man/aipwatch.1).
func writeMan(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := cli.Tree()
	root.DisableAutoGenTag = true // the same tree gives the same pages
	header := &doc.GenManHeader{Title: "AIPWATCH", Section: "1", Source: "aipwatch", Manual: "aipwatch manual"}
	return doc.GenManTree(root, header, dir)
}
