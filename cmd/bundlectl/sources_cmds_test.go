package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/lockfile"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// jsonpath VAR a.0.b: like jsonvar, where a number indexes an array.
	scriptCmds["jsonpath"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: jsonpath VAR field[.index|.field...]")
		}
		var v any
		ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &v))
		for _, k := range strings.Split(args[1], ".") {
			switch x := v.(type) {
			case map[string]any:
				v = x[k]
			case []any:
				i, err := strconv.Atoi(k)
				if err != nil || i < 0 || i >= len(x) {
					ts.Fatalf("jsonpath: no element %s", k)
				}
				v = x[i]
			default:
				ts.Fatalf("jsonpath: %s: not an object or array", k)
			}
		}
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		ts.Setenv(args[0], s)
	}

	// forgetoken file name: change one hex digit of the capability half of
	// the named bundle's token in a lockfile (a forged, well-formed lock).
	scriptCmds["forgetoken"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: forgetoken lockfile bundle")
		}
		p := ts.MkAbs(args[0])
		f, err := lockfile.Read(p)
		ts.Check(err)
		found := false
		for i := range f.Bundles {
			if f.Bundles[i].Name == args[1] {
				f.Bundles[i].Token.Capability[0] ^= 0x01
				found = true
			}
		}
		if !found {
			ts.Fatalf("no bundle %q in %s", args[1], p)
		}
		ts.Check(lockfile.Write(p, f))
	}
}
