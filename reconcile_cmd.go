package main

import "io"

func runReconcile(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return 2
}
