package hosts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// Beyond is what a settings file holds that its host reads and
// bundlectl's reader does not: bundlectl cannot tell what the file says,
// and must not take it for one the host ignores.
type Beyond int

const (
	// BeyondUTF16: UTF-16 little-endian behind its byte order mark
	// (Claude Code decodes it; Go's JSON reader takes UTF-8 only).
	BeyondUTF16 Beyond = iota + 1
	// BeyondNumber: a number past ±1.8e308 (JSON.parse makes it
	// Infinity; encoding/json refuses it).
	BeyondNumber
	// BeyondDepth: values nested deeper than encoding/json's 10000.
	BeyondDepth
	// BeyondDuplicateKey: a key written twice in an object (JSON.parse
	// takes the last; bundlectl's JSON reader, which writes the file
	// back, refuses it).
	BeyondDuplicateKey
)

// String is the word list --json gives it ("unreadable"): stable.
func (b Beyond) String() string {
	switch b {
	case BeyondUTF16:
		return "utf-16"
	case BeyondNumber:
		return "number"
	case BeyondDepth:
		return "depth"
	case BeyondDuplicateKey:
		return "duplicate-key"
	}
	return ""
}

// UnreadableError is a settings file its host reads and bundlectl cannot
// (Why). It is never a *SyntaxError, which is a file the host ignores
// too: taken for one, what the file sets (a switch turning hooks off,
// setup's hook lines) would count for nothing while the host acts on it.
type UnreadableError struct {
	Why Beyond
	// Title is the host as its messages name it ("Claude Code").
	Title string
	// Line is the line where the reader stopped, 0 when it is not known
	// (UTF-16, where every line is unreadable).
	Line int
	// Leftovers, of UTF-16, is what the recode hint leaves out.
	Leftovers
}

// Leftovers is what of a file in UTF-16 or UTF-32 iconv fails on, and a
// recode hint therefore leaves out, so that it runs as printed.
type Leftovers struct {
	// PartialUnit: the file ends in part of a code unit (an odd byte of
	// UTF-16, which Claude Code 2.1.332 leaves out too: agenttest
	// TestExecClaudeSettingsParse).
	PartialUnit bool
	// HalfAtEnd: the last whole code unit of UTF-16 is the first half of
	// a surrogate pair, which iconv -c does not drop there (it fails);
	// the hint cuts it, one code unit more than PartialUnit's cut.
	HalfAtEnd bool
	// Invalid: code units that make no character (half a surrogate
	// pair, which JavaScript keeps in a string; beyond U+10FFFF), which
	// no UTF-8 file can hold: no conversion keeps them, the hint leaves
	// them out (iconv -c) and the message says so.
	Invalid bool
}

// without is what l leaves out, as a message says it.
func (l Leftovers) without() []string {
	var w []string
	if l.PartialUnit {
		w = append(w, "the part of a character it ends in")
	}
	if l.Invalid {
		w = append(w, "the code units that make no character (half a surrogate pair, which no UTF-8 file can hold: write one in a string as a \\uXXXX escape to keep it)")
	}
	return w
}

// saveAsUTF8 is the fix a message ends in: save as UTF-8, without what
// goes (more, before l's).
func saveAsUTF8(more []string, l Leftovers) string {
	without := append(more, l.without()...)
	if len(without) == 0 {
		return "save the file as UTF-8"
	}
	return "save the file as UTF-8, without " + strings.Join(without, " and ")
}

// Error says why, and the fix, in words exec and setup quote.
func (e *UnreadableError) Error() string {
	switch e.Why {
	case BeyondUTF16:
		return "UTF-16, which " + e.Title + " reads and bundlectl does not: " + saveAsUTF8(nil, e.Leftovers)
	case BeyondDuplicateKey:
		return "a key written twice in one object, which " + e.Title + " reads (the last counts) and bundlectl does not: keep one"
	}
	return "a number beyond ±1.8e308, or values nested more than 10000 deep, which " + e.Title + " reads and bundlectl does not: write the number smaller, or nest less"
}

// What is why, as list says it of a file: what it holds.
func (e *UnreadableError) What() string {
	switch e.Why {
	case BeyondUTF16:
		return "it is written in UTF-16, which " + e.Title + " reads and bundlectl does not"
	case BeyondNumber:
		return fmt.Sprintf("it holds a number beyond ±1.8e308%s, which %s reads (as Infinity) and bundlectl does not", e.at(), e.Title)
	case BeyondDuplicateKey:
		return fmt.Sprintf("it writes a key twice in one object%s, which %s reads (the last one counts) and bundlectl does not", e.at(), e.Title)
	}
	return fmt.Sprintf("it nests values more than 10000 deep%s, which %s reads and bundlectl does not", e.at(), e.Title)
}

func (e *UnreadableError) at() string {
	if e.Line > 0 {
		return fmt.Sprintf(" (line %d)", e.Line)
	}
	return ""
}

// Hint is the command that makes path readable as printed: UTF-16
// rewritten as UTF-8 (iconv takes the byte order mark for the byte order
// and writes none, as Claude Code reads UTF-8 without one), as
// recodeHint says; otherwise the line to change.
func (e *UnreadableError) Hint(path string) string {
	if e.Why == BeyondUTF16 {
		return recodeHint(path, "UTF-16", 0, 2, e.Leftovers)
	}
	if e.Line > 0 {
		return fmt.Sprintf("sed -n %dp %s", e.Line, bundle.ShellArg(path))
	}
	return "cat " + bundle.ShellArg(path)
}

// recodeHint rewrites path from the encoding from, whose code units are
// unit bytes long, as UTF-8: past its first skip bytes (a UTF-8 byte
// order mark before from's own, which iconv takes for text and fails on;
// a mark and the NUL characters behind it) when skip is above 0, and of
// what follows without l (only whole code units; with iconv -c, none
// that makes no character).
// iconv writes a file beside it that mktemp makes: a new file no one
// could name beforehand, created only where nothing is (O_EXCL) and 0600
// whatever the umask, as a settings file may hold API keys in its env. A
// name fixed in the hint (path.utf8, onto which cp -p copied the
// settings file) was written through whatever stood there: a repository
// shipping .claude/settings.json in UTF-16 beside a
// .claude/settings.json.utf8 linked to the user's ~/.bashrc had the hint
// write its own text into ~/.bashrc, and a file of the user's of that
// name was lost. That file is then copied into path (cat … >), not moved
// onto it: a settings.json that is a symbolic link (a dotfiles
// repository's) stays one, its target converted and keeping its own
// mode, where mv put a plain file in the link's place and left the
// target as it was. Should the copy stop halfway, the whole UTF-8 text
// is still in the file beside it (path and six more characters); only
// when it is done does rm take that file away.
//
// The commands are a script of sh's, given path as its one argument
// ("$1"), so that the hint runs as printed in any shell a user types it
// into (fish has no name=value assignment and no $(…) before 3.4, and
// reads \\ and \' inside single quotes), and path is quoted once, as an
// argument; one starting with '-' goes as ./-…, taken for no option.
func recodeHint(path, from string, skip, unit int, l Leftovers) string {
	var stages []string
	if skip > 0 {
		stages = append(stages, fmt.Sprintf("tail -c +%d", skip+1))
	}
	count := ""
	if l.PartialUnit {
		count = `n=$(wc -c < "$1") && `
		cut := ""
		if l.HalfAtEnd {
			cut = fmt.Sprintf(" - %d", unit)
		}
		stages = append(stages, fmt.Sprintf("head -c $(( (n - %d) / %d * %d%s ))", skip, unit, unit, cut))
	}
	iconv := "iconv -f " + from + " -t UTF-8"
	if l.Invalid {
		iconv = "iconv -c -f " + from + " -t UTF-8"
	}
	stages = append(stages, iconv)
	stages[0] += ` < "$1"`
	script := `t=$(mktemp "$1.XXXXXX") && ` + count + strings.Join(stages, " | ") + ` > "$t" && cat "$t" > "$1" && rm -f "$t"`
	return "sh -c '" + script + "' sh " + shellPathArg(path)
}

// shellPathArg is path as one argument of a printed command that no
// command takes for an option: ./ before one starting with '-'.
func shellPathArg(path string) string {
	if strings.HasPrefix(path, "-") {
		path = "./" + path
	}
	return bundle.ShellArg(path)
}

// EncodingError is why a settings file its host ignores whole does not
// parse, when it is written in an encoding the host does not decode
// (Claude Code and UTF-32): wrapped in a *SyntaxError, as any file the
// host ignores, whose hint rewrites it as UTF-8 (SyntaxHint) where
// showing its first line would show nothing readable.
type EncodingError struct {
	// Name is the encoding as iconv names it ("UTF-32"); Title the host
	// as its messages name it.
	Name, Title string
	// BehindUTF8BOM: a UTF-8 byte order mark stands before the
	// encoding's own, and the host decodes what follows it as UTF-8 (so
	// it ignores a UTF-16 file there that it reads without that mark).
	BehindUTF8BOM bool
	// LeadingNULs: UTF-16 little-endian whose first characters, behind
	// its byte order mark, are this many U+0000 (one at least), so that
	// it starts as UTF-32's mark does; not UTF-32, whose code units it
	// does not make. Claude Code decodes it as UTF-16 and ignores it all
	// the same (JSON takes no NUL before a value).
	LeadingNULs int
	// Leftovers is what the recode hint leaves out.
	Leftovers
}

func (e *EncodingError) Error() string {
	switch {
	case e.LeadingNULs > 0 && e.BehindUTF8BOM:
		return "UTF-16 whose first " + e.nuls() + ", behind a UTF-8 byte order mark, which " + e.Title + " decodes as UTF-8 (it ignores the whole file): " + e.fix()
	case e.LeadingNULs > 0:
		return "UTF-16 whose first " + e.nuls() + ", behind its byte order mark, which " + e.Title + " does not parse (it ignores the whole file): " + e.fix()
	case e.BehindUTF8BOM:
		return e.Name + " behind a UTF-8 byte order mark, which " + e.Title + " decodes as UTF-8 (it ignores the whole file): " + e.fix()
	}
	return e.Name + " (behind its byte order mark), which " + e.Title + " does not decode (it ignores the whole file): " + e.fix()
}

// nuls says what e's leading NUL characters are.
func (e *EncodingError) nuls() string {
	if e.LeadingNULs == 1 {
		return "character is a NUL (U+0000)"
	}
	return fmt.Sprintf("%d characters are NULs (U+0000)", e.LeadingNULs)
}

// fix is what to do, as e's message ends: what the hint does.
func (e *EncodingError) fix() string {
	var nuls []string
	switch {
	case e.LeadingNULs == 1:
		nuls = append(nuls, "the NUL")
	case e.LeadingNULs > 1:
		nuls = append(nuls, "the NULs")
	}
	return saveAsUTF8(nuls, e.Leftovers)
}

// recodeHint is the command that rewrites path, in e's encoding, as
// UTF-8: past a UTF-8 byte order mark before the encoding's own, and,
// when e.LeadingNULs, past UTF-16's mark and the NULs too, as UTF-16LE
// (the mark gone, iconv takes no byte order from it); its Leftovers
// left out.
func (e *EncodingError) recodeHint(path string) string {
	skip := 0
	if e.BehindUTF8BOM {
		skip = 3
	}
	if e.LeadingNULs > 0 {
		return recodeHint(path, "UTF-16LE", skip+2+2*e.LeadingNULs, 2, e.Leftovers)
	}
	unit := 2
	if e.Name == "UTF-32" {
		unit = 4
	}
	return recodeHint(path, e.Name, skip, unit, e.Leftovers)
}

// SyntaxHint is the command that fixes path, which does not parse as its
// host reads it (se): rewritten as UTF-8 when se is an *EncodingError
// (iconv takes the byte order mark for the byte order, as Hint), else
// its line shown.
func SyntaxHint(se *SyntaxError, path string) string {
	var ee *EncodingError
	if errors.As(se.Err, &ee) {
		return ee.recodeHint(path)
	}
	return fmt.Sprintf("sed -n %dp %s", se.Line, bundle.ShellArg(path))
}

// UnreadableConfig is implemented by a HookBlock whose host reads some
// files of its hook lines that WiredEvents cannot (Claude Code's UTF-16
// settings.json): WiredEvents finding none there does not mean none is
// there, and list must not say the lines are gone, with a setup that
// refuses the file as the fix.
type UnreadableConfig interface {
	// ConfigUnreadable returns a *UnreadableError when data, the
	// file's content, is such a file, else nil.
	ConfigUnreadable(data []byte) *UnreadableError
}

// ConfigParse is implemented by a HookBlock whose host reads the file of
// its hook lines whole or not at all: one that does not parse as the host
// reads it holds none of them to the host, but they are not taken out,
// and the fix is its line, not setup (which refuses the file).
type ConfigParse interface {
	// ConfigSyntax returns where data, the file's content, does not
	// parse as the host reads it, and what more the host does with such
	// a file than read none of it ("" when the error says it), or nil.
	ConfigSyntax(data []byte) (err *SyntaxError, then string)
}

// JSONBeyond is what data, a JSON settings file the host reads, holds
// that bundlectl's JSON reader refused with err (ParseJSONAs), or nil
// when err is none of those: a key written twice, values nested past
// 10000.
func JSONBeyond(err error, title string) *UnreadableError {
	var se *SyntaxError
	line := 0
	if errors.As(err, &se) {
		line = se.Line
	}
	switch {
	case errors.Is(err, ErrDuplicateKey):
		return &UnreadableError{Why: BeyondDuplicateKey, Title: title, Line: line}
	case errors.Is(err, ErrNestedDeep):
		return &UnreadableError{Why: BeyondDepth, Title: title, Line: line}
	}
	return nil
}
