// Package corpus reads the hostile bundle corpus (testdata/corpus, see
// docs/corpus.md) and builds, at run time, the cases git cannot or should
// not hold: symbolic links, hard links, FIFOs, sockets, devices, setuid,
// setgid and sticky bits, names with control, bidirectional or invalid
// bytes, names that Windows or a case-insensitive filesystem cannot check
// out, and trees that break a bound.
//
// It exists only for tests (bundle and cmd/bundlectl share it) and is
// internal to the module.
//
// Invariants:
//   - every committed case breaks exactly one rule: its .want file lists at
//     most one distinct rule id with severity error or skipped (Committed
//     refuses a corpus that does not);
//   - a case directory is named like a bundle and is the bundle directory,
//     so the manifest name equals the case name;
//   - Check accepts a report only if every finding is listed in the case's
//     wants and every want is matched, so an unexpected warning fails too;
//   - runtime cases are built below a directory the caller owns and
//     removes (t.TempDir), never inside the repository.
package corpus
