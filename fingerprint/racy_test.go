package fingerprint

import (
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
)

func TestRacy(t *testing.T) {
	started := time.Date(2026, 12, 2, 10, 0, 10, 500_000_000, time.UTC) // 10.5 s
	at := func(sec, ns int) int64 { return time.Date(2026, 12, 2, 10, 0, sec, ns, time.UTC).UnixNano() }
	cases := []struct {
		name         string
		mtime, ctime int64
		want         bool
	}{
		{"well before", at(5, 123), at(5, 123), false},
		{"inside the window", at(10, 470_000_000), at(10, 470_000_000), true},
		{"after the start", at(11, 1), at(11, 1), true},
		{"ctime alone recent", at(5, 123), at(10, 480_000_000), true},
		// Whole-second times: a rewrite at 10.7 s on a 1 s file system
		// stamps 10.0 s, which must count as racy against a 10.5 s start.
		{"coarse, same tick", at(10, 0), at(10, 0), true},
		{"coarse, the 2 s tick before (written before the start)", at(8, 0), at(8, 0), false},
		{"coarse, odd second of the same 2 s tick", at(11, 0), at(11, 0), true},
		{"coarse, long before", at(4, 0), at(4, 0), false},
	}
	for _, c := range cases {
		if got := Racy(bundle.Entry{MtimeNs: c.mtime, CtimeNs: c.ctime}, started); got != c.want {
			t.Errorf("%s: racy = %v, want %v", c.name, got, c.want)
		}
	}
}
