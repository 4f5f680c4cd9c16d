package bundle

import (
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// Gemini CLI 0.61 rejects a whole policy file that breaks its schema, and
// drops a rule whose pattern it takes for a catastrophic one; a review
// must say so exactly there (internal/agenttest TestGeminiPolicyRules for
// the cases tried against the real CLI), and nowhere else: a priority
// written 10.0 is a whole number to JavaScript, an unknown field is
// dropped, and an escaped commandPrefix never nests a repetition.
func TestGeminiPolicyFaults(t *testing.T) {
	for _, c := range []struct {
		toml string
		want []string // fault paths, then "drop <field>" for a dropped rule
	}{
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 10.0\nfoo = 1\n", nil},
		{"[[rule]]\ntoolName = [\"x\", \"y\"]\ndecision = \"ask_user\"\npriority = 0\nmodes = [\"plan\", \"autoEdit\"]\ninteractive = true\n", nil},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 10.5\n", []string{"f: rule[0].priority"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = -1\n", []string{"f: rule[0].priority"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1000\n", []string{"f: rule[0].priority"}},
		{"[[rule]]\ntoolName = [\"x\", 1]\ndecision = \"deny\"\npriority = 1\n", []string{"f: rule[0].toolName"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\nmodes = [\"YOLO\"]\n", []string{"f: rule[0].modes"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\ninteractive = \"yes\"\n", []string{"f: rule[0].interactive"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\ncommandPrefix = 7\n", []string{"f: rule[0].commandPrefix"}},
		{"[rule]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\n", []string{"f: rule"}},
		{"[[rule]]\ndecision = \"deny\"\n", []string{"f: rule[0].priority", "f: rule[0].toolName"}},
		{"[[safety_checker]]\ntoolName = \"x\"\nchecker = { type = \"external\", name = \"c\", required_context = [\"a\"] }\n", nil},
		{"[[safety_checker]]\ntoolName = \"x\"\nchecker = { type = \"in-process\", name = \"conseca\" }\npriority = -5\n", nil},
		{"[[safety_checker]]\ntoolName = \"x\"\nchecker = { type = \"external\", name = \"c\", required_context = \"a\" }\n", []string{"f: safety_checker[0].checker"}},
		{"[[safety_checker]]\nchecker = { type = \"in-process\", name = \"nope\" }\n", []string{"f: safety_checker[0].checker", "f: safety_checker[0].toolName"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\nargsPattern = \"(rm +)+\"\n", []string{"drop argsPattern"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\nargsPattern = \"(rm|mv) +-rf\"\n", nil},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\nargsPattern = \"(?i)rm -rf\"\n", []string{"drop argsPattern"}},
		// Gemini CLI's test takes the ? of (?: for a repetition.
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\nargsPattern = \"(?:-r|-f)+\"\n", []string{"drop argsPattern"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\ncommandRegex = \"(?P<cmd>rm)\"\n", []string{"drop commandRegex"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\nargsPattern = \"(?:rm|mv)(?=\\\\s)(?<n>x)\\\\(?i\\\\)[(?i)]\"\n", nil},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\ncommandRegex = \"(a*)*\"\n", []string{"drop commandRegex"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\ncommandPrefix = \"x(y*)+\"\n", nil},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\ncommandPrefix = [\"ok\", \"" + strings.Repeat("a", 2030) + "\"]\n", []string{"drop commandPrefix"}},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\npriority = 1\ncommandPrefix = \"" + strings.Repeat("a", 2021) + "\"\n", nil},
	} {
		var doc map[string]any
		if err := toml.Unmarshal([]byte(c.toml), &doc); err != nil {
			t.Fatalf("%q: %v", c.toml, err)
		}
		var got []string
		for _, f := range geminiPolicyFaults("f:", doc) {
			got = append(got, f.field)
		}
		slices.Sort(got)
		if rules, _ := doc["rule"].([]any); len(got) == 0 && len(rules) > 0 {
			if field, why := geminiDroppedPattern(rules[0].(map[string]any)); why != "" {
				got = append(got, "drop "+field)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%.80q: got %q, want %q", c.toml, got, c.want)
		}
	}
}
