package state

import (
	"fmt"
	"os"
	"testing"
)

// benchHome holds 100 bundles, each with a full audit trail.
func benchHome(b *testing.B) *Store {
	b.Helper()
	st := Open(b.TempDir() + "/home")
	_, err := st.Update(func(s *State) error {
		for i := 0; i < 100; i++ {
			id := fmt.Sprintf("user/%012x/bundle-%d", i, i)
			for j := 0; j < AuditLimit/2+1; j++ {
				if _, err := s.Trust(id, testReceipt(id, j)); err != nil {
					return err
				}
				if _, err := s.Enable(id); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// Load runs before every spawn in a harness; it must stay cheap.
func BenchmarkLoad100Bundles(b *testing.B) {
	st := benchHome(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Load(); err != nil {
			b.Fatal(err)
		}
	}
	if fi, err := os.Stat(st.Path()); err == nil {
		b.ReportMetric(float64(fi.Size()), "file-bytes")
	}
}

// LoadCurrent is what the runtime reads before every hook and tool call:
// with the trails apart and last, it costs the same however long the
// history (benchHome's bundles have full trails).
func BenchmarkLoadCurrent100Bundles(b *testing.B) {
	st := benchHome(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.LoadCurrent(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdate100Bundles(b *testing.B) {
	st := benchHome(b)
	const id = "user/000000000000/bundle-0"
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_, err := st.Update(func(s *State) error {
			var err error
			if i%2 == 0 {
				_, err = s.Disable(id)
			} else {
				_, err = s.Enable(id)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
