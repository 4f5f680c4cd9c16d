//go:build linux || darwin

package bundle

import "golang.org/x/sys/unix"

func statTimes(st *unix.Stat_t) (mtimeNs, ctimeNs int64) {
	return st.Mtim.Nano(), st.Ctim.Nano()
}
