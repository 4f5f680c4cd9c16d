package bundle

import (
	"sort"
	"strings"
)

func sortStrings(s []string) { sort.Strings(s) }

// pathArena joins "rel/name" paths into shared blocks: a walk records a
// path for every entry, and one allocation per block rather than one per
// path halves the allocations of a listing. Blocks are only appended to,
// so a string handed out never changes; a full block is left to the
// strings that point into it.
type pathArena struct{ b strings.Builder }

func (a *pathArena) join(rel, name string) string {
	if rel == "" {
		return name
	}
	n := len(rel) + 1 + len(name)
	if a.b.Cap()-a.b.Len() < n {
		a.b = strings.Builder{}
		a.b.Grow(max(n, 4<<10))
	}
	start := a.b.Len()
	a.b.WriteString(rel)
	a.b.WriteByte('/')
	a.b.WriteString(name)
	return a.b.String()[start:]
}
