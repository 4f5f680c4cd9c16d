package main

import (
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

func init() {
	// exchange a b: swap two paths in one rename (RENAME_EXCHANGE), so a
	// process watching either never sees it missing, as two mv's would
	// let it.
	scriptCmds["exchange"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: exchange a b")
		}
		ts.Check(unix.Renameat2(unix.AT_FDCWD, ts.MkAbs(args[0]), unix.AT_FDCWD, ts.MkAbs(args[1]), unix.RENAME_EXCHANGE))
	}
}
