package agenttest

import (
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// TestExecClaudeSettingsParse: Claude Code 2.1.332 reads a project
// settings file that encoding/json cannot decode: one in UTF-16
// little-endian after its byte order mark, one with a number beyond float64 (JSON.parse makes it
// Infinity) in a key its schema does not name, one nested deeper than
// encoding/json's 10000 (Claude Code cuts what lies deeper than 64); its
// "disableAllHooks": true keeps the guard from running. exec once took
// each for a file Claude Code ignores, counted the true for nothing, and
// started the session; now it refuses the file as one it cannot read.
// One in UTF-16 big-endian, or without the mark, or holding a NUL byte,
// Claude Code ignores (the guard runs), and exec starts it; so one in
// UTF-32 behind its mark, either byte order (the little-endian mark
// starts as UTF-16's: Claude Code decodes it so, and finds no JSON),
// which exec once refused as UTF-16; so one in UTF-16 or UTF-32 with a
// UTF-8 byte order mark before its own (Claude Code decodes what follows
// that mark as UTF-8), the UTF-16 one of which exec once refused; so one
// in UTF-16 whose first character is U+0000, which starts as UTF-32's
// mark does (Claude Code decodes it as UTF-16, and JSON takes no NUL),
// or whose first two characters are. One in UTF-16 ending in an odd
// byte (Claude Code leaves it out) or holding half a surrogate pair in a
// string (JSON.parse keeps it) Claude Code reads: exec refuses it, with
// a message saying what its recode hint leaves out (the hint once failed
// on both as printed: hosts/claude TestRecodeHintsRunAsPrinted).
func TestExecClaudeSettingsParse(t *testing.T) {
	t.Parallel()
	const projectFile = "./.claude/settings.json"
	const utf16Says = "something bundlectl cannot read (UTF-16, which Claude Code reads and bundlectl does not: save the file as UTF-8)"
	const oddSays = "something bundlectl cannot read (UTF-16, which Claude Code reads and bundlectl does not: save the file as UTF-8, without the part of a character it ends in)"
	const halfSays = "something bundlectl cannot read (UTF-16, which Claude Code reads and bundlectl does not: save the file as UTF-8, without the code units that make no character (half a surrogate pair, which no UTF-8 file can hold: write one in a string as a \\uXXXX escape to keep it))"
	const beyondSays = "something bundlectl cannot read (a number beyond ±1.8e308, or values nested more than 10000 deep, which Claude Code reads and bundlectl does not: write the number smaller, or nest less)"
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	for _, c := range []execSwitchCase{
		{guardCase: guardCase{name: "true in UTF-16", files: map[string]string{projectFile: testtree.UTF16LE(`{"disableAllHooks": true}`)}}, refused: projectFile, setting: utf16Says},
		{guardCase: guardCase{name: "true beside 1e400", files: map[string]string{projectFile: `{"disableAllHooks": true, "x": 1e400}`}}, refused: projectFile, setting: beyondSays},
		{guardCase: guardCase{name: "true in UTF-16 big-endian", files: map[string]string{projectFile: "\xfe\xff" + testtree.UTF16BE(`{"disableAllHooks": true}`)}, blocks: true}},
		{guardCase: guardCase{name: "true in UTF-16 without a mark", files: map[string]string{projectFile: testtree.UTF16LE(`{"disableAllHooks": true}`)[2:]}, blocks: true}},
		{guardCase: guardCase{name: "true in UTF-32", files: map[string]string{projectFile: testtree.UTF32(`{"disableAllHooks": true}`, false)}, blocks: true}},
		{guardCase: guardCase{name: "true in UTF-16 behind a NUL", files: map[string]string{projectFile: testtree.UTF16LE("\x00" + `{"disableAllHooks": true}`)}, blocks: true}},
		{guardCase: guardCase{name: "true in UTF-32 big-endian", files: map[string]string{projectFile: testtree.UTF32(`{"disableAllHooks": true}`, true)}, blocks: true}},
		{guardCase: guardCase{name: "true in UTF-16 behind a UTF-8 mark", files: map[string]string{projectFile: "\xef\xbb\xbf" + testtree.UTF16LE(`{"disableAllHooks": true}`)}, blocks: true}},
		{guardCase: guardCase{name: "true in UTF-32 behind a UTF-8 mark", files: map[string]string{projectFile: "\xef\xbb\xbf" + testtree.UTF32(`{"disableAllHooks": true}`, false)}, blocks: true}},
		{guardCase: guardCase{name: "true beside a NUL byte", files: map[string]string{projectFile: "{\"disableAllHooks\": true, \"x\": \"a\x00b\"}"}, blocks: true}},
		{guardCase: guardCase{name: "true in UTF-16 with an odd byte at the end", files: map[string]string{projectFile: testtree.UTF16LE(`{"disableAllHooks": true}`) + "A"}}, refused: projectFile, setting: oddSays},
		{guardCase: guardCase{name: "true in UTF-16 beside half a surrogate pair", files: map[string]string{projectFile: testtree.UTF16LE(`{"disableAllHooks": true, "x": "`) + "\x00\xd8" + testtree.UTF16LE(`"}`)[2:]}}, refused: projectFile, setting: halfSays},
		{guardCase: guardCase{name: "true in UTF-16 behind two NULs", files: map[string]string{projectFile: testtree.UTF16LE("\x00\x00" + `{"disableAllHooks": true}`)}, blocks: true}},
		{guardCase: guardCase{name: "true beside nesting 10001 deep", files: map[string]string{projectFile: `{"disableAllHooks": true, "x": ` + deep + `}`}}, refused: projectFile, setting: beyondSays},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runExecSwitchCase(t, c)
		})
	}
}
