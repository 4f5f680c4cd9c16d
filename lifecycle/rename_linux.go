package lifecycle

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplaceAt renames from (in fromfd) to to (in tofd), failing
// with fs.ErrExist when to exists (even as an empty directory, which
// rename(2) would replace). from and to name the entries in errors.
func renameNoReplaceAt(fromfd int, from string, tofd int, to string) error {
	err := unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return renameNoReplaceAtFallback(fromfd, from, tofd, to)
	}
	return linkError("rename", from, to, err)
}

// exchangeAt swaps the directories a (in afd) and b (in bfd) in one step,
// so that a reader of b's parent never sees b missing: a running harness
// that lists the root during an update sees the old tree or the new one.
func exchangeAt(afd int, a string, bfd int, b string) error {
	err := unix.Renameat2(afd, a, bfd, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return exchangeAtFallback(afd, a, bfd, b)
	}
	return linkError("exchange", a, b, err)
}
