package bundle

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTextCharHintRuns: a text.control or text.bidi refusal ends in a
// command that, run as printed by a POSIX shell, prints the line that
// holds the character, whether the file holds it as it is or as an
// escape of JSON, TOML or YAML. The refusal never echoes the text, and
// it ended with the character's code point alone, so the reader was left
// to find it.
func TestTextCharHintRuns(t *testing.T) {
	for _, c := range []struct {
		name, rule string
		files      map[string]string
		line       string // what the line the command prints holds
	}{
		{"json escape", "text.control", map[string]string{
			"plugin.json": `{` + pluginSchema + `, "name": "p", "description": "ok\u001B[2J"}`}, `ok\u001B[2J`},
		{"json raw C1", "text.control", map[string]string{
			"plugin.json": `{` + pluginSchema + ", \"name\": \"p\",\n\"description\": \"ok\u009b2J\"}"}, "ok\u009b2J"},
		{"json raw line separator in a hook event", "text.control", map[string]string{
			ManifestClaude:     `{"name": "p"}`,
			"hooks/hooks.json": "{\"hooks\": {\"Stop\u2028\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]}}"}, "Stop\u2028"},
		{"yaml escape", "text.control", map[string]string{
			"skills/s/SKILL.md": skill("name: s\ndescription: \"a\\e[31mb\"")}, `a\e[31mb`},
		{"json raw DEL", "text.control", map[string]string{
			"plugin.json": `{` + pluginSchema + ", \"name\": \"p\", \"description\": \"a\x7fb\"}"}, "a\x7fb"},
		{"raw bidi", "text.bidi", map[string]string{
			"plugin.json": `{` + pluginSchema + ", \"name\": \"p\", \"description\": \"a\u202eb\"}"}, "a\u202eb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := writeTree(t, "p", c.files)
			var msg string
			for _, f := range b.Report.Findings {
				if f.Rule == c.rule {
					msg = f.Message
				}
			}
			_, cmd, ok := strings.Cut(msg, "to see where it is: ")
			if !ok {
				t.Fatalf("no %s refusal with a command:%s", c.rule, dumpFindings(b))
			}
			out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
			// cat -v shows a C1, DEL or multibyte character as M-… and ^…
			if err != nil || !strings.Contains(string(out), visible(c.line)) {
				t.Errorf("%s\nprinted %q (%v), want a line holding %q", cmd, out, err, visible(c.line))
			}
		})
	}
}

// visible is s as cat -v prints it.
func visible(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 0x80 {
			b.WriteString("M-")
			c -= 0x80
		}
		switch {
		case c < 0x20:
			b.WriteString("^" + string(rune(c+'@')))
		case c == 0x7f:
			b.WriteString("^?")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
