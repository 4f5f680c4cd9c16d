package review

import (
	"fmt"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// hookPostedURL is the url an http hook's event is posted to, where it
// differs from raw, the url as written: raw as JavaScript's URL reads it
// (bundle.JSURLPostURL; Claude Code's hooks and bundlectl's hooks run post
// there), its fragment left out, which no request carries. A reviewer
// reading "https://C%41.example/x/../y" sees "https://ca.example/y": the
// host decoded, the dot segments resolved, the escapes JavaScript adds.
// A url JavaScript's URL refuses, or that is not special, has none, and
// so has one that only lacks its root path ("https://h").
func hookPostedURL(raw string) string {
	posted := bundle.JSURLPostURL(raw)
	if posted == raw || posted == raw+"/" { // "https://h" is https://h/, as is plain

		return ""
	}
	at, _, _ := strings.Cut(posted, "#")
	return at
}

// postedURLRow is the review's row for an http hook posted to at, which is
// not its url as written.
func postedURLRow(at string) string {
	return jsonString(at) + ": where Claude Code and bundlectl post it, the url as Claude Code's URL parser reads it (host decoded, default port dropped, path resolved and escaped)"
}

// postedAtText is the posted_at host note: who posts the hook's event to
// at.
func postedAtText(who, at string) string {
	return fmt.Sprintf("%s the event to %s: the url as Claude Code's URL parser reads it, not as written", who, jsonString(at))
}
