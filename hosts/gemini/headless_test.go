package gemini

import "testing"

func init() {
	// Tests run as in a terminal unless they say otherwise: go test's
	// stdin and stdout are not one, and would make every session headless.
	t := true
	testOnlyTerminals = &t
}

// TestHeadless: what makes Gemini CLI 0.61 surely headless, from its
// isHeadlessMode and loadCliConfig (internal/agenttest
// TestGeminiHeadlessSpellings), and what makes it not sure.
func TestHeadless(t *testing.T) {
	yes, no := true, false
	defer func() { testOnlyTerminals = &yes }()
	for _, tc := range []struct {
		name      string
		args, env []string
		terminals bool
		want      bool
	}{
		{"-p", []string{"-p", "hi"}, nil, true, true},
		{"--prompt", []string{"--prompt", "hi"}, nil, true, true},
		{"--prompt=hi", []string{"--prompt=hi"}, nil, true, true},
		{"-p=hi", []string{"-p=hi"}, nil, true, true},
		{"-p with no value", []string{"-m", "x", "-p"}, nil, true, true},
		{"--prompt= empty", []string{"--prompt="}, nil, true, false},
		{"a positional prompt", []string{"hi"}, nil, true, false},
		{"nothing", nil, nil, true, false},
		{"CI=true", []string{"hi"}, []string{"CI=true"}, true, true},
		{"GITHUB_ACTIONS=true", nil, []string{"GITHUB_ACTIONS=true"}, true, true},
		{"CI=true in an integration test", []string{"hi"}, []string{"CI=true", "GEMINI_CLI_INTEGRATION_TEST=true"}, true, false},
		{"CI=1", []string{"hi"}, []string{"CI=1"}, true, false},
		{"CI, the last entry wins", []string{"hi"}, []string{"CI=true", "CI=false"}, true, false},
		{"stdin or stdout not a terminal", []string{"hi"}, nil, false, true},
		{"not a terminal, -i", []string{"-i", "hi"}, nil, false, false},
		// Not sure: the interactive interface may be asked for.
		{"-p with -i", []string{"-p", "hi", "-i", "hi"}, nil, true, false},
		{"-i=", []string{"-p", "", "-i=hi"}, nil, true, false},
		{"-ihi", []string{"-p", "", "-ihi"}, nil, true, false},
		{"a short group with i", []string{"-p", "", "-yi", "hi"}, nil, true, false},
		{"--prompt-interactive", []string{"-p", "", "--prompt-interactive", "hi"}, nil, true, false},
		{"--promptInteractive=", []string{"-p", "", "--promptInteractive=hi"}, nil, true, false},
		{"--acp", []string{"--acp", "-p", "hi"}, nil, true, false},
		{"--experimental-acp", []string{"--experimental-acp", "-p", "hi"}, nil, true, false},
		{"--experimentalAcp", []string{"--experimentalAcp", "-p", "hi"}, []string{"CI=true"}, false, false},
	} {
		testOnlyTerminals = &no
		if tc.terminals {
			testOnlyTerminals = &yes
		}
		if got := headless(tc.args, tc.env); got != tc.want {
			t.Errorf("%s: headless(%q, %q) = %v, want %v", tc.name, tc.args, tc.env, got, tc.want)
		}
	}
}
