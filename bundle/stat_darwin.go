package bundle

import "golang.org/x/sys/unix"

func statTimes(st *unix.Stat_t) (mtimeNs, ctimeNs int64) {
	return st.Mtimespec.Nano(), st.Ctimespec.Nano()
}
