package main

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// fsHint speaks only of a file system's refusal of a path: the same errno
// from elsewhere (a full inotify watch table says ENOSPC, a refused
// namespace EPERM) gets no word about disks or modes.
func TestFSHintNeedsAPath(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		err  error
		hint string
	}{
		{fmt.Errorf("write state: %w", &fs.PathError{Op: "open", Path: dir + "/a/b", Err: syscall.ENOSPC}), "df -h " + dir},
		{fmt.Errorf("x: %w", &fs.PathError{Op: "open", Path: dir, Err: syscall.EACCES}), "ls -ld " + dir},
		{fmt.Errorf("watch: %w", syscall.ENOSPC), ""},
		{fmt.Errorf("unshare: %w", syscall.EPERM), ""},
		{&fs.PathError{Op: "open", Path: dir, Err: syscall.ENOENT}, ""},
		{errors.New("other"), ""},
	} {
		note, hint := fsHint(tc.err)
		if hint != tc.hint || (note == "") != (tc.hint == "") {
			t.Errorf("%v: note %q, hint %q; want hint %q", tc.err, note, hint, tc.hint)
		}
	}
}
