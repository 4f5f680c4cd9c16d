//go:build !linux

package lifecycle

// renameNoReplaceAt renames from (in fromfd) to to (in tofd), failing
// with fs.ErrExist when to exists. Without renameat2 the check and the
// rename are two steps; the state lock the callers hold keeps other
// bundlectl processes out.
func renameNoReplaceAt(fromfd int, from string, tofd int, to string) error {
	return renameNoReplaceAtFallback(fromfd, from, tofd, to)
}

// exchangeAt swaps the directories a (in afd) and b (in bfd). Without
// renameat2 there is a moment in which b is missing (documented in
// docs/sources.md).
func exchangeAt(afd int, a string, bfd int, b string) error {
	return exchangeAtFallback(afd, a, bfd, b)
}
