package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDocsNameEveryFlag fails when a command has a flag that neither
// README.md nor a page of docs/ names (as `--flag`, or inside a command
// line in a code block): every flag must be documented.
func TestDocsNameEveryFlag(t *testing.T) {
	var text strings.Builder
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pages, "../../README.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text.Write(b)
	}
	docs := text.String()
	root, _ := newRoot(nil, nil, nil)
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" || f.Name == "version" {
				return
			}
			n++
			if !strings.Contains(docs, "--"+f.Name) {
				t.Errorf("%s --%s is not named in README.md or docs/", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			if !sub.Hidden && sub.Name() != "help" {
				walk(sub)
			}
		}
	}
	walk(root)
	if n < 30 {
		t.Fatalf("found only %d flags; the walk is broken", n)
	}
}
