package agenttest

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkExecOverhead measures what `bundlectl exec` adds at launch: the
// same one-plugin session (guard hook, MCP server, skill) started directly
// with the plugin from its source directory, the host's own way, and
// through bundlectl exec from the reviewed snapshot, alternately, after one
// warm-up of each. Two sessions: "launch" (the model answers at once: start,
// MCP server start, one request, exit) and "hook" (one shell call the guard
// blocks, so one hook runs: directly, or through bundlectl hooks exec).
//
// It reports the median wall time of each and their ratio. Runs per side:
// $BUNDLECTL_BENCH_RUNS, default 3 (docs/hosts.md used 7):
//
//	BUNDLECTL_BENCH_RUNS=7 go test -run '^$' -bench ExecOverhead -benchtime=1x ./internal/agenttest/
func BenchmarkExecOverhead(b *testing.B) {
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("BUNDLECTL_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for _, h := range hosts {
		for _, scenario := range []string{"launch", "hook"} {
			b.Run(string(h)+"/"+scenario, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					direct, exec := measureExec(b, h, scenario, runs)
					b.ReportMetric(direct.Seconds()*1000, "direct-ms")
					b.ReportMetric(exec.Seconds()*1000, "exec-ms")
					b.ReportMetric(exec.Seconds()/direct.Seconds(), "ratio")
				}
			})
		}
	}
}

func measureExec(b *testing.B, h Host, scenario string, runs int) (direct, exec time.Duration) {
	tmp := b.TempDir()
	marker := filepath.Join(tmp, markerName)
	var script []Turn
	if scenario == "hook" {
		script = append(script, ShellCall(h, "touch "+marker))
	}
	script = append(script, Say("done"))
	a := New(b, h, script...)
	f := newExecFixture(b, a)
	f.trust(b)
	if h == Claude {
		a.Args = []string{"--allowedTools", "Bash"}
	}
	directArgs, directEnv := directPlugin(b, a, f)
	viaArgs := append([]string(nil), a.Args...)
	if h == Codex {
		viaArgs = append(viaArgs, "-c", "features.plugins=true")
	}
	run := func(through bool) time.Duration {
		if through {
			a.Launcher, a.Args, a.Env = f.launcher(b), viaArgs, nil
		} else {
			a.Launcher, a.Args, a.Env = nil, directArgs, directEnv
		}
		os.Remove(marker)
		start := time.Now()
		res := a.Run(b, "owls")
		d := time.Since(start)
		if _, err := os.Stat(marker); err == nil {
			b.Fatalf("the guard did not block (through bundlectl: %v)\n%s", through, res)
		}
		return d
	}
	run(false)
	run(true)
	var ds, es []time.Duration
	for i := 0; i < runs; i++ {
		ds = append(ds, run(false))
		es = append(es, run(true))
	}
	return median(ds), median(es)
}

// directPlugin loads the plugin from its source the host's own way: Claude
// Code --plugin-dir, a copy in Codex's plugin cache enabled and trusted with
// -c, a link in Gemini CLI's extensions directory.
func directPlugin(b *testing.B, a *Agent, f *execFixture) (args, env []string) {
	args = append([]string(nil), a.Args...)
	switch a.Host {
	case Claude:
		args = append([]string{"--plugin-dir", f.src}, args...)
	case Codex:
		dst := filepath.Join(a.ConfigDir(), "plugins", "cache", "direct", pluginName, "1.0.0")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			b.Fatal(err)
		}
		if out, err := runCmd("cp", "-a", f.src, dst); err != nil {
			b.Fatalf("cp: %v\n%s", err, out)
		}
		id := pluginName + "@direct"
		key := CodexHookKey(id+":hooks/hooks.json", "PreToolUse", 0, 0)
		hash := CodexHookHash("PreToolUse", "Bash", "${PLUGIN_ROOT}/bin/guard.sh", CodexHookTimeout)
		args = append(args, "-c", "features.plugins=true",
			"-c", fmt.Sprintf("plugins={%q={enabled=true}}", id),
			"-c", fmt.Sprintf("hooks.state={%q={trusted_hash=%q}}", key, hash))
	case GeminiCLI:
		ext := filepath.Join(a.ConfigDir(), "extensions")
		os.MkdirAll(ext, 0o755)
		if err := os.Symlink(f.src, filepath.Join(ext, pluginName)); err != nil && !os.IsExist(err) {
			b.Fatal(err)
		}
	}
	return args, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func runCmd(name string, args ...string) ([]byte, error) {
	return osexec.Command(name, args...).CombinedOutput()
}
