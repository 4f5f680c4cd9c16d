package fingerprint

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/zeebo/blake3"
)

// referenceWalkDigest is the encoding WalkDigest documents, written one
// field at a time: records written by earlier versions must still prove.
func referenceWalkDigest(es []bundle.Entry) string {
	h := blake3.New()
	var buf [45]byte
	for _, e := range es {
		h.WriteString(e.Path)
		h.Write([]byte{0})
		buf[0] = byte(e.Kind)
		binary.LittleEndian.PutUint64(buf[1:], uint64(e.Size))
		binary.LittleEndian.PutUint32(buf[9:], e.Mode)
		binary.LittleEndian.PutUint64(buf[13:], e.Dev)
		binary.LittleEndian.PutUint64(buf[21:], e.Ino)
		binary.LittleEndian.PutUint64(buf[29:], uint64(e.MtimeNs))
		binary.LittleEndian.PutUint64(buf[37:], uint64(e.CtimeNs))
		h.Write(buf[:])
		h.WriteString(e.Target)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestWalkDigestEncoding(t *testing.T) {
	for _, n := range []int{0, 1, 2, 300, 2000} { // 2000 entries cross the buffer's flush
		es := make([]bundle.Entry, n)
		for i := range es {
			es[i] = bundle.Entry{Path: fmt.Sprintf("dir%d/file-%05d.txt", i%7, i), Kind: bundle.Kind(i % 4), Size: int64(i * 31),
				Mode: uint32(0o644 + i%2*0o111), Dev: 2049, Ino: uint64(1_000_000 + i), MtimeNs: int64(i) * 1e9, CtimeNs: int64(i)*1e9 + 7}
			if i%50 == 0 {
				es[i].Target = fmt.Sprintf("dir0/file-%05d.txt", i/2)
			}
		}
		if got, want := WalkDigest(es), referenceWalkDigest(es); got != want {
			t.Fatalf("%d entries: WalkDigest %s, the documented encoding %s", n, got, want)
		}
	}
}
