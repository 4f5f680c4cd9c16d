//go:build !linux

package lifecycle

// renameNoReplace renames from to to, failing with fs.ErrExist when to
// exists. Without renameat2 the check and the rename are two steps; the
// state lock the callers hold keeps other bundlectl processes out.
func renameNoReplace(from, to string) error { return renameNoReplaceFallback(from, to) }

// exchange swaps the directories a and b. Without renameat2 there is a
// moment in which b is missing (documented in docs/sources.md).
func exchange(a, b string) error { return exchangeFallback(a, b) }
