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
