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
