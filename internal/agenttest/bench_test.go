package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOneToolSession measures a whole non-interactive session of each
// real CLI against the stand-in: start, one shell tool call, a final answer,
// exit. It reports time only; it asserts the marker so a broken setup cannot
// pass as a fast one.
func BenchmarkOneToolSession(b *testing.B) {
	for _, h := range hosts {
		b.Run(string(h), func(b *testing.B) {
			FindCLI(b, string(h))
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				marker := filepath.Join(b.TempDir(), "marker")
				a := New(b, h, ShellCall(h, "touch "+marker), Say("done"))
				allowShell(a)
				b.StartTimer()
				a.Run(b, "make the marker")
				b.StopTimer()
				if _, err := os.Stat(marker); err != nil {
					b.Fatalf("marker not created: %v", err)
				}
			}
		})
	}
}
