package bundle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCodexMCPTimeoutValues: a Codex MCP server's startup_timeout_sec,
// startup_timeout_ms and tool_timeout_sec are reviewed as Codex 0.171
// reads them (internal/agenttest TestCodexMCPTimeouts): a value it cannot
// read drops that server alone (mcp.server-field), one it reads but times
// out on at once is a codex.ignored warning, one that overflows its clock
// (it panics) a manifest.timeout warning, and so is one it waits on for
// ever in practice (CodexNeverSec, about 292 years: 1e18, 2^64-1 ms),
// which Codex keeps as written (TestCodexMCPHugeTimeouts); any other
// value is silent. Before, every value was accepted without a word, and
// then 1e18 still was.
func TestCodexMCPTimeoutValues(t *testing.T) {
	cases := []struct {
		name, fields string
		keep         bool
		rule         string // a warning's rule on the server, if any
	}{
		{"plain", ``, true, ""},
		{"s_frac", `"startup_timeout_sec": 20.5`, true, ""},
		{"s_null", `"startup_timeout_sec": null`, true, ""},
		{"s_big", `"startup_timeout_sec": 1e18`, true, "manifest.timeout"},
		{"s_long", `"startup_timeout_sec": 9223372036`, true, ""},
		{"s_never", `"startup_timeout_sec": 9223372037`, true, "manifest.timeout"},
		{"s_neg", `"startup_timeout_sec": -1`, false, ""},
		{"s_str", `"startup_timeout_sec": "20"`, false, ""},
		{"s_bool", `"startup_timeout_sec": true`, false, ""},
		{"s_2_64", `"startup_timeout_sec": 18446744073709551616`, false, ""},
		{"s_u64max", `"startup_timeout_sec": 18446744073709551615`, false, ""},
		{"s_1e30", `"startup_timeout_sec": 1e30`, false, ""},
		{"s_1e400", `"startup_timeout_sec": 1e400`, false, ""},
		{"s_zero", `"startup_timeout_sec": 0`, true, codexIgnored},
		{"s_negzero", `"startup_timeout_sec": -0.0`, true, codexIgnored},
		{"s_tiny", `"startup_timeout_sec": 1e-12`, true, codexIgnored},
		{"s_2_63", `"startup_timeout_sec": 9223372036854775807`, true, "manifest.timeout"},
		{"ms_ok", `"startup_timeout_ms": 20000`, true, ""},
		{"ms_max", `"startup_timeout_ms": 18446744073709551615`, true, "manifest.timeout"},
		{"ms_long", `"startup_timeout_ms": 9223372036000`, true, ""},
		{"ms_zero", `"startup_timeout_ms": -0`, true, codexIgnored},
		{"ms_neg", `"startup_timeout_ms": -1`, false, ""},
		{"ms_frac", `"startup_timeout_ms": 1500.5`, false, ""},
		{"ms_float", `"startup_timeout_ms": 1e3`, false, ""},
		{"ms_str", `"startup_timeout_ms": "1500"`, false, ""},
		{"ms_2_64", `"startup_timeout_ms": 18446744073709551616`, false, ""},
		{"ms_bad_s_ok", `"startup_timeout_ms": -1, "startup_timeout_sec": 20`, false, ""},
		{"ms_zero_s_ok", `"startup_timeout_ms": 0, "startup_timeout_sec": 20`, true, ""},
		{"t_frac", `"tool_timeout_sec": 0.5`, true, ""},
		{"t_null", `"tool_timeout_sec": null`, true, ""},
		{"t_neg", `"tool_timeout_sec": -1`, false, ""},
		{"t_str", `"tool_timeout_sec": "60"`, false, ""},
		{"t_2_64", `"tool_timeout_sec": 18446744073709551616`, false, ""},
		{"t_1e30", `"tool_timeout_sec": 1e30`, false, ""},
		{"t_zero", `"tool_timeout_sec": 0`, true, codexIgnored},
		{"t_2_63", `"tool_timeout_sec": 9223372036854775807`, true, "manifest.timeout"},
		{"t_1e18", `"tool_timeout_sec": 1e18`, true, "manifest.timeout"},
		{"t_long", `"tool_timeout_sec": 9223372036.5`, true, ""},
		{"t_never", `"tool_timeout_sec": 9223372037`, true, "manifest.timeout"},
		{"t_1e300", `"tool_timeout_sec": 1e300`, false, ""},
	}
	var servers []string
	for _, c := range cases {
		f := `"command": "./bin/s"`
		if c.fields != "" {
			f += ", " + c.fields
		}
		servers = append(servers, fmt.Sprintf("%q: {%s}", c.name, f))
	}
	b := writeTree(t, "cx", map[string]string{
		ManifestCodex: `{"name": "cx"}`,
		"bin/s":       "#!/bin/sh\n",
		".mcp.json":   `{"mcpServers": {` + strings.Join(servers, ",\n") + `}}`,
	})
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	var listed []string
	for _, s := range b.Components.MCP {
		listed = append(listed, s.Name)
	}
	for _, c := range cases {
		at := "mcpServers." + c.name + "."
		var rules []string
		for _, f := range b.Report.Findings {
			if strings.Contains(f.Path, at) && slices.Contains([]string{"mcp.server-field", codexIgnored, "manifest.timeout"}, f.Rule) {
				rules = append(rules, f.Severity.String()+" "+f.Rule)
			}
		}
		var want []string
		switch {
		case !c.keep:
			want = []string{Skip.String() + " mcp.server-field"}
		case c.rule != "":
			want = []string{Warning.String() + " " + c.rule}
		}
		if slices.Contains(listed, c.name) != c.keep || !slices.Equal(rules, want) {
			t.Errorf("%s {%s}: listed %v with findings %q, want listed %v with %q, as Codex 0.171 reads it", c.name, c.fields, slices.Contains(listed, c.name), rules, c.keep, want)
		}
	}
	// A listed server keeps each of its timeout fields in Other as
	// written (null as absent): bundlectl exec and setup give them to
	// Codex (CodexMCPTimeouts).
	for _, s := range b.Components.MCP {
		for _, c := range cases {
			if c.name != s.Name {
				continue
			}
			want := map[string]string{}
			for _, f := range strings.Split(c.fields, ", ") {
				if k, v, ok := strings.Cut(f, ": "); ok && v != "null" {
					want[strings.Trim(k, `"`)] = v
				}
			}
			got := map[string]string{}
			for k, v := range s.Other {
				if strings.Contains(k, "timeout") {
					got[k] = string(v)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s {%s}: Other holds the timeouts %v, want %v as written", c.name, c.fields, got, want)
			}
		}
	}
}
