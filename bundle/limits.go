package bundle

// Default bounds on a bundle tree (docs/tree-rules.md). They apply to discovery,
// validation, review, trust and the copy into the store alike. An embedding
// harness may pass other Limits.
const (
	DefaultMaxEntries    = 20000
	DefaultMaxTotalBytes = 512 << 20
	DefaultMaxFileBytes  = 128 << 20
	DefaultMaxDepth      = 32
	DefaultMaxPathBytes  = 1024
	// MaxManifestBytes bounds every file bundlectl parses (plugin.json,
	// plugin.toml, mcp.json, SKILL.md and the .md content components).
	MaxManifestBytes = 1 << 20
	// MaxViewBytes bounds the files of one host view, which bundlectl
	// holds in memory while it builds and checks it (hosts.View): less
	// than a bundle may hold (DefaultMaxTotalBytes).
	MaxViewBytes = 256 << 20
)

// warnViewSize warns when the bundle's files are more than one host view
// holds: exec then cannot make the view of a host that loads them and
// loads the bundle's hooks alone (hosts.Prepare's notice), so the
// review is the first place that can say so. A bundle whose large files
// no host loads (a data directory beside its skills) still gets its
// views: the warning says "if".
func warnViewSize(b *Bundle) {
	if b.Tree == nil || b.Tree.Bytes <= MaxViewBytes {
		return
	}
	b.Report.Warnf(".", "bounds.view", "the bundle's files total %d bytes, more than the %d bytes (256 MiB) one host view holds: if the files a host loads pass that, bundlectl exec cannot make its view and loads only the bundle's hooks (its guards still run), and nothing else of it reaches that agent; keep the bundle under 256 MiB (move large data out of it)", b.Tree.Bytes, MaxViewBytes)
}

// Limits bound the size and shape of a bundle tree.
type Limits struct {
	MaxEntries    int   // files and directories below the root
	MaxTotalBytes int64 // sum of regular file sizes
	MaxFileBytes  int64 // one regular file
	MaxDepth      int   // path elements below the root
	MaxPathBytes  int   // bytes of a slash-separated relative path
}

// DefaultLimits returns the limits of docs/tree-rules.md.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:    DefaultMaxEntries,
		MaxTotalBytes: DefaultMaxTotalBytes,
		MaxFileBytes:  DefaultMaxFileBytes,
		MaxDepth:      DefaultMaxDepth,
		MaxPathBytes:  DefaultMaxPathBytes,
	}
}

// WithDefaults returns l with every zero (or negative) field replaced by
// its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxPathBytes <= 0 {
		l.MaxPathBytes = d.MaxPathBytes
	}
	return l
}
