package review

import (
	"os"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestBlake3SeesTheCPUFeatures checks what zeebo/blake3 is told about the
// processor, by the stand-in for klauspost/cpuid in internal/cpuid, against
// the flags the kernel reports: a wrong answer would make the hashes take
// the portable path (slow) or an instruction set the CPU lacks (SIGILL).
func TestBlake3SeesTheCPUFeatures(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo here")
	}
	var flags []string
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = strings.Fields(v)
			break
		}
	}
	if flags == nil {
		t.Skip("no x86 flags line in /proc/cpuinfo")
	}
	has := func(f string) bool {
		for _, x := range flags {
			if x == f {
				return true
			}
		}
		return false
	}
	if got, want := cpuid.CPU.Has(cpuid.AVX2), has("avx2"); got != want {
		t.Errorf("Has(AVX2) = %v, /proc/cpuinfo avx2 = %v", got, want)
	}
	if got, want := cpuid.CPU.Has(cpuid.SSE4), has("sse4_1"); got != want {
		t.Errorf("Has(SSE4) = %v, /proc/cpuinfo sse4_1 = %v", got, want)
	}
	if cpuid.CPU.Has(cpuid.FeatureID(99)) {
		t.Error("Has(an unknown feature) = true, want false")
	}
}
