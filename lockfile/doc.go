// Package lockfile reads and writes bundlectl.lock, the file a team
// commits so that other machines install exactly the bundles it reviewed
// (docs/lockfile.md has the format and a complete example).
//
// The format is TOML: a person reviews the file in pull requests, so one
// key per line, a table per bundle and line numbers in every error matter
// more than the uniformity JSON would give with state.json.
//
// Invariants:
//   - Parse is strict: an unknown key, a duplicate key or table, a value of
//     the wrong type, a missing field, an unsupported version, a malformed
//     or zero token, a source that sources.Resolved.Validate refuses, an
//     invalid name or scope, or two bundles whose names collide (Unicode
//     NFC and case folding) is a *ParseError naming the line and the field
//     (bundle[N], counted from 1). No error repeats a value from the file.
//   - Marshal refuses an invalid File, sorts bundles by name, writes keys in
//     a fixed order after a fixed header, and checks that its output parses
//     back: equal Files give equal bytes, and Parse(Marshal(f)) is f sorted.
//   - Read opens without following a link or blocking on a FIFO and reads
//     at most MaxFileSize bytes of a regular file.
//   - Write replaces the file atomically (renameio: synced temporary file in
//     the same directory, rename, directory synced), mode 0644 regardless
//     of the umask, never replaces anything but a regular file, and writes
//     nothing when Marshal fails.
//   - Parse never panics and accepted input round-trips (FuzzParse, seeded
//     from testdata/).
package lockfile
