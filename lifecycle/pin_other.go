//go:build !linux

package lifecycle

// pinEntry returns the identity of the entry name of the directory dirfd,
// not followed (nil when there is none), and holds it open until release
// when it is a directory it can open: an inode held open is not freed, so
// no file made meanwhile can take its number and pass for it. Anything
// else is only stat'd (without O_PATH there is no other way):
// pinEntryByOpen.
func pinEntry(dirfd int, name string) (id *entryID, release func()) {
	return pinEntryByOpen(dirfd, name)
}
