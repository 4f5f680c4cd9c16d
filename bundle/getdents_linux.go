//go:build linux

package bundle

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// getdents reads directory entries of fd into buf.
func getdents(fd int, buf []byte) (int, error) { return unix.Getdents(fd, buf) }

// appendNames appends the names of the linux_dirent64 records in b to
// names, leaving out "." and "..". The names are substrings of one string
// holding them all: one allocation per getdents call rather than one per
// name, and the slice grows once.
func appendNames(names []string, b []byte) []string {
	// struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
	const nameOff = 19
	next := func(off int) (name []byte, reclen int) {
		if off+nameOff > len(b) {
			return nil, 0
		}
		reclen = int(binary.NativeEndian.Uint16(b[off+16:]))
		if reclen < nameOff || off+reclen > len(b) {
			return nil, 0
		}
		name = b[off+nameOff : off+reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if binary.NativeEndian.Uint64(b[off:]) == 0 || len(name) == 0 || string(name) == "." || string(name) == ".." {
			name = nil // a deleted entry, or the directory itself or its parent
		}
		return name, reclen
	}
	count, size := 0, 0
	for off := 0; ; {
		name, reclen := next(off)
		if reclen == 0 {
			break
		}
		off += reclen
		if name != nil {
			count, size = count+1, size+len(name)
		}
	}
	var all strings.Builder
	all.Grow(size) // it never grows again, so every String below shares one array
	names = slices.Grow(names, count)
	for off := 0; ; {
		name, reclen := next(off)
		if reclen == 0 {
			break
		}
		off += reclen
		if name != nil {
			at := all.Len()
			all.Write(name)
			names = append(names, all.String()[at:])
		}
	}
	return names
}
