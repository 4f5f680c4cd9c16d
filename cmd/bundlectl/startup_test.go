package main

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// initHeapBudget is what bundlectl's library packages may allocate, all
// together, while the process starts (their package-level variables and
// init functions). Every bundlectl process pays for it, and a host starts
// one per tool call (`hooks run`): what only some commands need is built
// on first use (sync.OnceValue, lazyRegexp). They allocated 94 KiB before
// that rule, of which the Gemini CLI host's regular expressions were half.
const initHeapBudget = 24 << 10

// testSupport are this module's packages the test binary links and
// bundlectl does not.
var testSupport = []string{"internal/corpus", "internal/testtree", "internal/hookcases", "internal/agenttest"}

// TestStartupAllocatesLittle: the runtime's own trace of package
// initialization (GODEBUG=inittrace=1) of this test binary, which links
// the same library packages as bundlectl, says how much each allocated;
// the sum stays within initHeapBudget. (The command's own package is left
// out: here it holds the tests' variables too.)
func TestStartupAllocatesLittle(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG="+strings.TrimPrefix(os.Getenv("GODEBUG")+",inittrace=1", ","))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	const module = "github.com/bundlectl/bundlectl/"
	bytes := map[string]int{}
	total := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg, ok := strings.CutPrefix(f[1], module)
		if !ok || pkg == "cmd/bundlectl" || isTestSupport(pkg) {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		bytes[pkg] += n
		total += n
	}
	if len(bytes) == 0 {
		t.Fatalf("no inittrace line for a package of %s in:\n%s", module, out)
	}
	if total > initHeapBudget {
		pkgs := make([]string, 0, len(bytes))
		for p := range bytes {
			pkgs = append(pkgs, p)
		}
		sort.Slice(pkgs, func(i, j int) bool { return bytes[pkgs[i]] > bytes[pkgs[j]] })
		var each []string
		for _, p := range pkgs {
			each = append(each, fmt.Sprintf("%s %d", p, bytes[p]))
		}
		t.Errorf("the library packages allocate %d bytes at init, more than the %d every process can afford: build what only some commands need on first use (sync.OnceValue); by package: %s",
			total, initHeapBudget, strings.Join(each, ", "))
	}
}

func isTestSupport(pkg string) bool {
	for _, p := range testSupport {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}
