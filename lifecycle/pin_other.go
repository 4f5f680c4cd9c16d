//go:build !linux

package lifecycle

import (
	"os"
	"syscall"
)

// pinEntry returns the identity of the entry at path, not followed (nil
// when there is none), and holds it open until release when it can be
// opened: an inode held open is not freed, so no file made meanwhile can
// take its number and pass for it. A directory it cannot read, or a
// symbolic link, is only stat'd (without O_PATH there is no other way).
func pinEntry(path string) (fi os.FileInfo, release func()) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err == nil {
		if fi, err = f.Stat(); err == nil && fi.IsDir() {
			return fi, func() { f.Close() }
		}
		f.Close()
	}
	fi, _ = os.Lstat(path)
	return fi, func() {}
}
