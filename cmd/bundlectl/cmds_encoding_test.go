package main

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

func init() {
	// utf16le path: rewrite a UTF-8 file as UTF-16 little-endian behind
	// its byte order mark (as an editor saving "Unicode" writes it),
	// keeping its mode.
	scriptCmds["utf16le"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 || neg {
			ts.Fatalf("usage: utf16le path")
		}
		p := ts.MkAbs(args[0])
		fi, err := os.Stat(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, []byte(testtree.UTF16LE(ts.ReadFile(args[0]))), fi.Mode().Perm()))
	}
	// utf32 path [be]: rewrite a UTF-8 file as UTF-32 behind its byte
	// order mark, little-endian unless be, keeping its mode.
	scriptCmds["utf32"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 1 || len(args) > 2 || neg {
			ts.Fatalf("usage: utf32 path [be]")
		}
		p := ts.MkAbs(args[0])
		fi, err := os.Stat(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, []byte(testtree.UTF32(ts.ReadFile(args[0]), len(args) == 2 && args[1] == "be")), fi.Mode().Perm()))
	}
	// utf8bom path: put a UTF-8 byte order mark before a file (one
	// already in UTF-16 or UTF-32, as a tool adding the mark to any file
	// leaves it), keeping its mode.
	scriptCmds["utf8bom"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 || neg {
			ts.Fatalf("usage: utf8bom path")
		}
		p := ts.MkAbs(args[0])
		fi, err := os.Stat(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, append([]byte("\xef\xbb\xbf"), ts.ReadFile(args[0])...), fi.Mode().Perm()))
	}
}
