package claude

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/internal/testtree"
)

// TestListUnreadableSettings: setup's lines in a user settings.json that
// Claude Code reads and bundlectl cannot (UTF-16 behind its byte order
// mark) are not gone: list (CheckSetups) says the file cannot be read,
// why, and the command that rewrites it as UTF-8, and nothing once it is
// UTF-8 again. It once said the lines were gone, with setup as the fix,
// which refuses the file. Behind a UTF-8 byte order mark, which Claude
// Code skips, the lines are read and nothing is said.
func TestListUnreadableSettings(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + user}
	settings := filepath.Join(user, ".claude", "settings.json")
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: ws}, Environ: environ}
	if _, err := hosts.Setup(home, Host{}, in); err != nil {
		t.Fatal(err)
	}
	wrote, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(settings, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	write(testtree.UTF16LE(string(wrote)))
	sts := hosts.CheckSetups(home, ws, environ)
	if len(sts) != 1 || sts[0].Unreadable == nil || sts[0].Gone {
		t.Fatalf("CheckSetups = %+v, want one that cannot read the file, not gone", sts)
	}
	st := sts[0]
	if st.Unreadable.Why != hosts.BeyondUTF16 || st.Unreadable.Why.String() != "utf-16" || len(st.Missing) != 0 {
		t.Errorf("Unreadable = %+v, Missing = %v, want UTF-16 and none missing", st.Unreadable, st.Missing)
	}
	if msg := st.Message(); !strings.Contains(msg, bundle.Quote(settings)) || !strings.Contains(msg, "UTF-16") || strings.Contains(msg, "none is there") {
		t.Errorf("Message = %q, want the file named, UTF-16 said, and not that the lines are gone", msg)
	}
	if want := recodeWant(settings, `iconv -f UTF-16 -t UTF-8 < "$1"`); st.Fix() != want {
		t.Errorf("Fix = %q, want %q", st.Fix(), want)
	}
	// Setup refuses the file with the same hint.
	_, err = hosts.Setup(home, Host{}, in)
	var fe *hosts.SetupFileError
	if !errors.As(err, &fe) || fe.Hint() != st.Fix() {
		t.Errorf("Setup = %v, want a refusal whose hint is %q", err, st.Fix())
	}

	write("\ufeff" + string(wrote))
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 0 {
		t.Errorf("behind a UTF-8 byte order mark: CheckSetups = %+v, want nothing (Claude Code reads the lines)", sts[0])
	}
	write(string(wrote))
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 0 {
		t.Errorf("CheckSetups = %+v, want nothing (the lines are there)", sts[0])
	}
	// Gone for real: UTF-16 of a file without the lines is still one
	// bundlectl cannot read, and says so; UTF-8 without them is gone.
	write("{}")
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 1 || !sts[0].Gone {
		t.Errorf("CheckSetups = %+v, want the lines gone", sts)
	}
}

// TestConfigUnreadable: which settings.json ConfigUnreadable refuses:
// those Claude Code reads and WiredEvents does not: UTF-16 little-endian
// behind its mark, a key written twice, nesting past 10000; not UTF-16
// big-endian, nor without the mark, nor behind a UTF-8 mark (agenttest
// TestExecClaudeSettingsParse: Claude Code ignores it; this test once
// said otherwise, untried), nor UTF-32, nor a comment (which it ignores, and
// so do setup's lines in it), nor an empty file (read as {}), nor a
// number WiredEvents reads.
func TestConfigUnreadable(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       hosts.Beyond
	}{
		{"UTF-16 little-endian", testtree.UTF16LE(`{"hooks": {}}`), hosts.BeyondUTF16},
		{"UTF-16 behind a UTF-8 mark, whose rest Claude Code decodes as UTF-8", "\ufeff" + testtree.UTF16LE(`{}`), 0},
		{"UTF-16 big-endian", "\xfe\xff" + testtree.UTF16BE(`{}`), 0},
		{"UTF-16 without a mark", testtree.UTF16LE(`{}`)[2:], 0},
		{"UTF-32 little-endian, whose mark starts as UTF-16's", testtree.UTF32(`{}`, false), 0},
		{"UTF-32 big-endian", testtree.UTF32(`{}`, true), 0},
		{"UTF-8", `{"hooks": {}}`, 0},
		{"UTF-8 behind its mark", "\ufeff{}", 0},
		{"empty", "", 0},
		{"a number beyond float64, which WiredEvents reads", `{"x": 1e400}`, 0},
		{"a key written twice", "{\"x\": 1,\n\"x\": 2}", hosts.BeyondDuplicateKey},
		{"nested 10001 deep", `{"x": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, hosts.BeyondDepth},
		{"a comment, which Claude Code ignores", "{\"x\": 1 // mine\n}", 0},
	} {
		got := Host{}.ConfigUnreadable([]byte(c.data))
		if (got == nil) != (c.want == 0) || got != nil && got.Why != c.want {
			t.Errorf("%s: ConfigUnreadable = %+v, want %v", c.name, got, c.want)
		}
	}
}

// TestReadSettingsBeyond: readSettings refuses what Claude Code reads and
// encoding/json does not with a typed *hosts.UnreadableError naming the
// line, whose hint shows it; never a *hosts.SyntaxError (a file Claude
// Code ignores).
func TestReadSettingsBeyond(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	for _, c := range []struct {
		name, data string
		why        hosts.Beyond
		line       int
	}{
		{"UTF-16", testtree.UTF16LE("{\n}"), hosts.BeyondUTF16, 0},
		{"1e400", "{\n  \"a\": 1,\n  \"x\": 1e400\n}\n", hosts.BeyondNumber, 3},
		{"nested 10001 deep", "{\n\n  \"x\": " + deep + "\n}\n", hosts.BeyondDepth, 3},
	} {
		p := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readSettings(p)
		var ue *hosts.UnreadableError
		var se *hosts.SyntaxError
		if !errors.As(err, &ue) || errors.As(err, &se) || ue.Why != c.why || ue.Line != c.line {
			t.Errorf("%s: readSettings = %v (%+v), want %v at line %d", c.name, err, ue, c.why, c.line)
			continue
		}
		if c.line > 0 && !slices.Contains(strings.Fields(ue.Hint(p)), "-n") {
			t.Errorf("%s: Hint = %q, want the line shown", c.name, ue.Hint(p))
		}
	}
}

// TestListUnparsedSettings: setup's lines in a user settings.json that
// Claude Code ignores whole (a comment added by hand: internal/agenttest
// TestClaudeSettingsComments) run no more, and are not taken out: list
// says the file does not parse, at which line, with a hint showing it,
// not setup (which refuses the file). It once said "none is there now",
// with setup as the fix.
func TestListUnparsedSettings(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + user}
	settings := filepath.Join(user, ".claude", "settings.json")
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: ws}, Environ: environ}
	if _, err := hosts.Setup(home, Host{}, in); err != nil {
		t.Fatal(err)
	}
	wrote, _ := os.ReadFile(settings)
	commented := strings.Replace(string(wrote), "{\n", "{\n  // mine\n", 1)
	if err := os.WriteFile(settings, []byte(commented), 0o644); err != nil {
		t.Fatal(err)
	}
	sts := hosts.CheckSetups(home, ws, environ)
	if len(sts) != 1 || !sts[0].Gone || sts[0].Syntax == nil || sts[0].Syntax.Line != 2 {
		t.Fatalf("CheckSetups = %+v, want the lines gone to Claude Code, the file not parsing at line 2", sts)
	}
	if want := "sed -n 2p " + bundle.ShellArg(settings); sts[0].Fix() != want {
		t.Errorf("Fix = %q, want %q", sts[0].Fix(), want)
	}
	if msg := sts[0].Message(); !strings.Contains(msg, "Claude Code reads none of them") || strings.Contains(msg, "none is there") {
		t.Errorf("Message = %q", msg)
	}
	// Taken out for real: gone, and setup is the fix.
	if err := os.WriteFile(settings, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 1 || sts[0].Syntax != nil || sts[0].Fix() != "bundlectl setup claude" {
		t.Errorf("CheckSetups = %+v, want the lines gone, setup the fix", sts)
	}
}

// TestReadSettingsUTF32: a settings file in UTF-32 behind its byte order
// mark, either byte order, is one Claude Code ignores whole (it decodes
// the little-endian mark as UTF-16's, the big-endian one as UTF-8, and
// finds no JSON: agenttest TestExecClaudeSettingsParse), a
// *hosts.SyntaxError naming UTF-32, whose hint rewrites it from UTF-32
// as UTF-8. bundlectl once took the little-endian one for UTF-16, which
// Claude Code reads: exec and setup refused it as unreadable, and the
// hint (iconv -f UTF-16) wrote a file Claude Code reads nothing of.
func TestReadSettingsUTF32(t *testing.T) {
	for _, be := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(p, []byte(testtree.UTF32(`{"disableAllHooks": true}`, be)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readSettings(p)
		var se *hosts.SyntaxError
		var ee *hosts.EncodingError
		if !errors.As(err, &se) || !errors.As(err, &ee) || ee.Name != "UTF-32" || !strings.Contains(err.Error(), "UTF-32") {
			t.Fatalf("big-endian %v: readSettings error %v, want a SyntaxError naming UTF-32", be, err)
		}
		if want := recodeWant(p, `iconv -f UTF-32 -t UTF-8 < "$1"`); hosts.SyntaxHint(se, p) != want {
			t.Errorf("big-endian %v: hint %q, want %q", be, hosts.SyntaxHint(se, p), want)
		}
	}
}

// TestReadSettingsBehindUTF8BOM: a UTF-8 byte order mark before
// UTF-16's or UTF-32's is a file Claude Code 2.1.332 ignores (it decodes
// what follows the UTF-8 mark as UTF-8: internal/agenttest
// TestExecClaudeSettingsParse), named with its encoding, and its hint
// cuts the UTF-8 mark off before iconv, which fails on it. The UTF-16
// one was refused as one Claude Code reads, and both hints failed.
func TestReadSettingsBehindUTF8BOM(t *testing.T) {
	const s = `{"disableAllHooks": true}`
	for _, c := range []struct{ name, data, encoding string }{
		{"UTF-16", testtree.UTF16LE(s), "UTF-16"},
		{"UTF-16 big-endian", "\xfe\xff" + testtree.UTF16BE(s), "UTF-16"},
		{"UTF-32", testtree.UTF32(s, false), "UTF-32"},
		{"UTF-32 big-endian", testtree.UTF32(s, true), "UTF-32"},
	} {
		p := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(p, []byte("\xef\xbb\xbf"+c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readSettings(p)
		var se *hosts.SyntaxError
		var ee *hosts.EncodingError
		if !errors.As(err, &se) || !errors.As(err, &ee) || ee.Name != c.encoding || !strings.Contains(err.Error(), c.encoding+" behind a UTF-8 byte order mark") {
			t.Fatalf("%s: readSettings error %v, want a SyntaxError naming %s behind a UTF-8 mark", c.name, err, c.encoding)
		}
		if want := recodeWant(p, `tail -c +4 < "$1" | iconv -f `+c.encoding+` -t UTF-8`); hosts.SyntaxHint(se, p) != want {
			t.Errorf("%s: hint %q, want %q", c.name, hosts.SyntaxHint(se, p), want)
		}
	}
}

// TestReadSettingsUTF16LeadingNUL: UTF-16 little-endian behind its byte
// order mark whose first character is U+0000 starts with UTF-32's mark
// (FF FE 00 00), and was named UTF-32, with an iconv -f UTF-32 hint that
// fails on it. Claude Code 2.1.332 ignores it either way (agenttest
// TestExecClaudeSettingsParse, "true in UTF-16 behind a NUL" and "behind
// two NULs"): it is named as UTF-16 starting with NULs, and its hint,
// run as printed, leaves every leading NUL out and makes the file one
// bundlectl reads (so Claude Code too); so behind a UTF-8 byte order
// mark, and with an odd last byte, half a character, which the hint
// leaves out too. The hint once skipped one NUL only (the file kept the
// others), and kept the odd byte (iconv failed: a five-byte FF FE 00 00
// 7B got a hint that failed as printed).
func TestReadSettingsUTF16LeadingNUL(t *testing.T) {
	const s = `{"disableAllHooks": true}`
	nul := "\xff\xfe" + testtree.UTF16LE("\x00" + s)[2:]
	for _, c := range []struct{ name, data, says, want, stages string }{
		{"behind its mark", nul, "UTF-16 whose first character is a NUL (U+0000), behind its byte order mark", s,
			`tail -c +5 < "$1" | iconv -f UTF-16LE -t UTF-8`},
		{"behind a UTF-8 mark", "\xef\xbb\xbf" + nul, "UTF-16 whose first character is a NUL (U+0000), behind a UTF-8 byte order mark", s,
			`tail -c +8 < "$1" | iconv -f UTF-16LE -t UTF-8`},
		{"behind three NULs", "\xff\xfe" + testtree.UTF16LE("\x00\x00\x00" + s)[2:], "UTF-16 whose first 3 characters are NULs (U+0000), behind its byte order mark, which Claude Code does not parse (it ignores the whole file): save the file as UTF-8, without the NULs", s,
			`tail -c +9 < "$1" | iconv -f UTF-16LE -t UTF-8`},
		{"with an odd byte at the end", nul + "\x7d", "without the NUL and the part of a character it ends in", s,
			`n=$(wc -c < "$1") && tail -c +5 < "$1" | head -c $(( (n - 4) / 2 * 2 )) | iconv -f UTF-16LE -t UTF-8`},
		{"behind a UTF-8 mark and two NULs with an odd byte at the end", "\xef\xbb\xbf\xff\xfe" + testtree.UTF16LE("\x00\x00" + s)[2:] + "\x00", "UTF-16 whose first 2 characters are NULs (U+0000), behind a UTF-8 byte order mark", s,
			`n=$(wc -c < "$1") && tail -c +10 < "$1" | head -c $(( (n - 9) / 2 * 2 )) | iconv -f UTF-16LE -t UTF-8`},
		{"five bytes", "\xff\xfe\x00\x00\x7b", "without the NUL and the part of a character it ends in", "",
			`n=$(wc -c < "$1") && tail -c +5 < "$1" | head -c $(( (n - 4) / 2 * 2 )) | iconv -f UTF-16LE -t UTF-8`},
	} {
		for _, name := range hostileNames {
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(c.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := readSettings(p)
			var se *hosts.SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "UTF-32") {
				t.Fatalf("%s: readSettings error %v, want a SyntaxError saying %s", c.name, err, c.says)
			}
			hint := hosts.SyntaxHint(se, name)
			if want := recodeWant(name, c.stages); hint != want {
				t.Errorf("%s: hint %q, want %q", c.name, hint, want)
			}
			runHintAsPrinted(t, c.name, dir, hint, p, c.data, c.want)
		}
	}
}

// hostileNames are names of a settings file a printed hint must quote
// right: white space, both quotes, a backslash, a dollar sign and a
// leading dash (taken for an option unless written ./-…).
var hostileNames = []string{"settings.json", `-it's a "s\\ $x".json`}

// recodeWant is the recode hint for path (as printed, relative or not)
// whose pipeline, reading "$1", is stages.
func recodeWant(path, stages string) string {
	if strings.HasPrefix(path, "-") {
		path = "./" + path
	}
	return `sh -c 't=$(mktemp "$1.XXXXXX") && ` + stages + ` > "$t" && cat "$t" > "$1" && rm -f "$t"' sh ` + bundle.ShellArg(path)
}

// runHintAsPrinted runs hint, printed for the file p in dir, as a user
// would, in dir: in sh, and in fish where it is installed, each on the
// file as data again; after it the file holds want, and nothing is left
// beside it. Without iconv it does nothing.
func runHintAsPrinted(t *testing.T, name, dir, hint, p, data, want string) {
	t.Helper()
	if _, err := exec.LookPath("iconv"); err != nil {
		return
	}
	shells := []string{"sh"}
	if _, err := exec.LookPath("fish"); err == nil {
		shells = append(shells, "fish")
	}
	for _, sh := range shells {
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sh, "-c", hint)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %s: the hint failed: %v %s", name, sh, err, out)
			continue
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s: %s: after the hint the file holds %q (%v), want %q", name, sh, b, err, want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s: %s: after the hint %d files are in its directory, want the one", name, sh, len(ents))
		}
	}
}

// TestReadSettingsUTF32NotLeadingNUL: UTF-32 whose code units are all
// Unicode scalar values stays named UTF-32, though UTF-16 could read
// the same bytes.
func TestReadSettingsUTF32NotLeadingNUL(t *testing.T) {
	for _, data := range []string{testtree.UTF32(`{"é": "\U0001F600"}`, false), "\xff\xfe\x00\x00"} {
		if utf16WithLeadingNUL([]byte(data)) {
			t.Errorf("%q taken for UTF-16 behind a NUL", data)
		}
	}
	for _, data := range []string{"\xff\xfe\x00\x00{\x00", "\xff\xfe\x00\x00\x00\xd8\x00\x00", "\xff\xfe\x00\x00\x00\x00\x11\x00"} {
		if !utf16WithLeadingNUL([]byte(data)) {
			t.Errorf("%q not taken for UTF-16 behind a NUL", data)
		}
	}
}

// TestRecodeHintsRunAsPrinted: each shape of a settings file in UTF-16
// or UTF-32 gets a hint that runs as printed, in sh and in fish, under a
// name holding quotes, a backslash, a dollar sign and a leading dash,
// and leaves the file as UTF-8 bundlectl reads: one ending in part of a
// character (Claude Code 2.1.332 reads UTF-16 with an odd last byte,
// leaving it out: agenttest TestExecClaudeSettingsParse) and one holding
// code units that make no character (half a surrogate pair, which it
// reads too, in a string; a UTF-32 unit past U+10FFFF), which the hint
// leaves out and the message says no UTF-8 file can hold. Each hint
// handed iconv all of the file, which it failed on.
func TestRecodeHintsRunAsPrinted(t *testing.T) {
	const s = `{"x": "é"}`
	half := testtree.UTF16LE(`{"x": "é`) + "\x00\xd8" + testtree.UTF16LE(`"}`)[2:]
	for _, c := range []struct{ name, data, says, want string }{
		{"UTF-16", testtree.UTF16LE(s), "UTF-16, which Claude Code reads and bundlectl does not: save the file as UTF-8", s},
		{"UTF-16 ending in an odd byte", testtree.UTF16LE(s) + "A", "save the file as UTF-8, without the part of a character it ends in", s},
		{"UTF-16 holding half a surrogate pair", half, "save the file as UTF-8, without the code units that make no character (half a surrogate pair", s},
		{"UTF-16 holding a low surrogate alone, ending in an odd byte", testtree.UTF16LE(`{"x": "é`) + "\x00\xdc" + testtree.UTF16LE(`"}`)[2:] + "\x00", "without the part of a character it ends in and the code units that make no character", s},
		{"UTF-32 big-endian ending in part of a unit", testtree.UTF32(s, true) + "\x00\x00", "UTF-32 (behind its byte order mark)", s},
		{"UTF-32 big-endian holding a unit past U+10FFFF", testtree.UTF32(`{"x": "é`, true) + "\x00\x11\x00\x00" + testtree.UTF32(`"}`, true)[4:], "without the code units that make no character", s},
		{"UTF-16 big-endian behind a UTF-8 mark, ending in an odd byte", "\xef\xbb\xbf\xfe\xff" + testtree.UTF16BE(s) + "\x00", "UTF-16 behind a UTF-8 byte order mark", s},
		// iconv -c drops half a surrogate pair, but not as the last code
		// unit: there it fails ("incomplete character"), and the hint
		// left the file as it was and its temporary file beside it.
		{"UTF-16 ending in half a surrogate pair", testtree.UTF16LE(s) + "\x00\xd8", "UTF-16, which Claude Code reads and bundlectl does not: save the file as UTF-8, without the part of a character it ends in", s},
		{"UTF-16 ending in half a surrogate pair and an odd byte", testtree.UTF16LE(s) + "\x00\xd8A", "save the file as UTF-8, without the part of a character it ends in", s},
		{"UTF-16 behind two NULs ending in half a surrogate pair", testtree.UTF16LE("\x00\x00"+s) + "\xff\xdb", "NULs", s},
	} {
		for _, name := range hostileNames {
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(c.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := readSettings(p)
			var hint string
			var se *hosts.SyntaxError
			var ue *hosts.UnreadableError
			switch {
			case errors.As(err, &se):
				hint = hosts.SyntaxHint(se, name)
			case errors.As(err, &ue):
				hint = ue.Hint(name)
			default:
				t.Fatalf("%s: readSettings error %v, want one the file is not UTF-8", c.name, err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("%s: readSettings error %q, want it saying %q", c.name, err, c.says)
			}
			runHintAsPrinted(t, c.name, dir, hint, p, c.data, c.want)
		}
	}
}
