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
// this process. Unless a child has already been started, it probes the
// kernel (a clone into the namespaces that execs nothing, see
// probeLevel); the answer is cached for the life of the process.
func Containment() ContainmentLevel {
	if l := testOnlyContainment; l != 0 {
		return l
	}
	detected.mu.Lock()
	defer detected.mu.Unlock()
	if detected.level == 0 {
		if testOnlyProbe != nil {
			detected.level = testOnlyProbe()
		} else {
			detected.level = probeLevel()
		}
	}
	return detected.level
}

// detected is the level in force, once known: probed, or confirmed by a
// child started at the presumed level.
var detected struct {
	mu    sync.Mutex
	level ContainmentLevel
}

// startLevel is the level to start a child at. Before the level is known
// it is the strongest the caller's credentials may get (presumedLevel),
// tried without a probe, which costs as much as a third of a spawn on the
// hot path: confirmed is false, and startChild probes only if that start
// fails.
func startLevel() (l ContainmentLevel, confirmed bool) {
	if l := testOnlyContainment; l != 0 {
		return l, true
	}
	detected.mu.Lock()
	defer detected.mu.Unlock()
	if detected.level != 0 {
		return detected.level, true
	}
	return presumedLevel(), false
}

// confirmLevel records the level a child was started at, if the level
// was not known yet.
func confirmLevel(l ContainmentLevel) {
	detected.mu.Lock()
	defer detected.mu.Unlock()
	if detected.level == 0 {
		detected.level = l
	}
}

// testOnlyContainment, when non-zero, forces the level children are
// started with, so that each fallback can be tested on a host that offers
// more. Tests set it before starting children and reset it afterwards;
// forcing a level the host lacks makes every start fail.
var testOnlyContainment ContainmentLevel

// testOnlyProbe, when set, replaces probeLevel; testOnlyStartFails, when
// set, makes a start at the levels it reports fail as a clone the kernel
// refuses would, before anything is started.
var (
	testOnlyProbe      func() ContainmentLevel
	testOnlyStartFails func(ContainmentLevel) bool
)
