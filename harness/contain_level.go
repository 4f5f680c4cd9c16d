package harness

import "sync"

// ContainmentLevel says how far the execution layer can hold a child's
// descendants: which of them die when the child's call ends, and which
// die when bundlectl itself is SIGKILLed. Containment reports the level
// in force; the package documentation lists what each level covers.
type ContainmentLevel int

const (
	// ContainProcessGroup: the child leads its own session and process
	// group, killed on every way out. A descendant that calls setsid
	// survives the call; when bundlectl is SIGKILLed only the direct child
	// dies (Linux parent-death signal), its descendants survive.
	ContainProcessGroup ContainmentLevel = 1 + iota
	// ContainSubreaper: as ContainProcessGroup, and bundlectl is a child
	// subreaper (Linux PR_SET_CHILD_SUBREAPER): a descendant whose parent
	// dies is re-parented to bundlectl, which kills it when a call ends.
	// When bundlectl is SIGKILLed only the direct child dies.
	ContainSubreaper
	// ContainUserPIDNamespace: the child is the init of a new PID
	// namespace inside a new user namespace that maps only the caller's
	// own uid and gid (for a caller without CAP_SYS_ADMIN). When the child
	// exits, or is killed, the kernel kills every process in the
	// namespace; the parent-death signal kills the child, and so the
	// namespace, when bundlectl is SIGKILLed.
	ContainUserPIDNamespace
	// ContainPIDNamespace: the child is the init of a new PID namespace
	// (CLONE_NEWPID, for a caller with CAP_SYS_ADMIN), with the same
	// guarantees as ContainUserPIDNamespace and no change of credentials.
	ContainPIDNamespace
)

// String is the level's name as bundlectl prints it.
func (l ContainmentLevel) String() string {
	switch l {
	case ContainProcessGroup:
		return "process-group"
	case ContainSubreaper:
		return "subreaper"
	case ContainUserPIDNamespace:
		return "user+pid-namespace"
	case ContainPIDNamespace:
		return "pid-namespace"
	}
	return "unknown"
}

// Namespaced reports whether the child is the init of its own PID
// namespace, so that no descendant outlives it.
func (l ContainmentLevel) Namespaced() bool {
	return l == ContainPIDNamespace || l == ContainUserPIDNamespace
}

// Containment reports the containment level children are started with in
// this process. The first call probes the kernel (a clone that creates
// the namespaces and execs nothing, see probeLevel); the answer is cached
// for the life of the process.
func Containment() ContainmentLevel {
	if l := testOnlyContainment; l != 0 {
		return l
	}
	detected.once.Do(func() { detected.level = probeLevel() })
	return detected.level
}

var detected struct {
	once  sync.Once
	level ContainmentLevel
}

// testOnlyContainment, when non-zero, forces the level children are
// started with, so that each fallback can be tested on a host that offers
// more. Tests set it before starting children and reset it afterwards;
// forcing a level the host lacks makes every start fail.
var testOnlyContainment ContainmentLevel
