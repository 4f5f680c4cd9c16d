package main

import (
	"os"
	"unicode/utf16"

	"github.com/rogpeppe/go-internal/testscript"
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
		out := []byte{0xff, 0xfe}
		for _, u := range utf16.Encode([]rune(ts.ReadFile(args[0]))) {
			out = append(out, byte(u), byte(u>>8))
		}
		ts.Check(os.WriteFile(p, out, fi.Mode().Perm()))
	}
}
