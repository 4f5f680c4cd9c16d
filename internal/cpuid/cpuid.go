// Package cpuid stands in for github.com/klauspost/cpuid/v2 in bundlectl's
// build (a replace directive in bundlectl's go.mod). It provides exactly
// what zeebo/blake3 asks of that module, the AVX2 and SSE4.1 feature bits,
// and answers from golang.org/x/sys/cpu, which checks the same CPUID bits
// and the same operating-system support (XGETBV) for AVX.
//
// Why: klauspost/cpuid detects every feature, cache and topology leaf in an
// init function, about forty CPUID instructions. In a virtual machine each
// CPUID traps to the hypervisor; on bundlectl's CI machine kind that init
// alone took 0.41 ms of every process start, a tenth of a one-shot
// `bundlectl run` outside the tool itself. golang.org/x/sys/cpu executes a
// handful.
//
// Invariants: Has answers only for the features listed here, and answers
// false for any other; a zeebo/blake3 that asks for more does not compile
// against this module, which is the loud failure wanted.
package cpuid

import "golang.org/x/sys/cpu"

// FeatureID names a CPU feature, as klauspost/cpuid's type of that name.
type FeatureID int

// The features zeebo/blake3 asks for.
const (
	_    FeatureID = iota
	AVX2           // AVX2, with the OS saving the YMM registers
	SSE4           // SSE4.1
)

// CPUInfo is the detected processor.
type CPUInfo struct{}

// CPU is the processor this process runs on.
var CPU CPUInfo

// Has reports whether the processor (and, for AVX2, the operating system)
// supports feature id.
func (CPUInfo) Has(id FeatureID) bool {
	switch id {
	case AVX2:
		return cpu.X86.HasAVX2
	case SSE4:
		return cpu.X86.HasSSE41
	}
	return false
}
