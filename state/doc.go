// Package state holds the trust and enable state of docs/state.md: the file
// $BUNDLECTL_HOME/state.json, read with Store.Load (or, by the runtime,
// Store.LoadCurrent) and changed only with Store.Update. The file format is
// documented in docs/state.md.
//
// Invariants:
//   - state.json is only ever replaced whole, by an atomic rename of a
//     fsynced temp file in the same directory (github.com/google/renameio/v2),
//     followed by an fsync of the directory; it is written mode 0600. A
//     reader sees one whole version, never a partial write.
//   - Every read-modify-write holds an exclusive flock on state.lock (never
//     the renamed file) for its whole duration and re-reads state.json after
//     acquiring it. The only way to persist is Update, which hands its
//     function that fresh State: a State from Load cannot be written back,
//     so a stale view can neither lose an update nor resurrect a revoked
//     trust. The lock wait is bounded by LockWait (then ErrLocked).
//     state.lock is never removed or renamed.
//   - Every persisted transition (trust, enable, disable, revoke) advances
//     its bundle's generation and the global generation by exactly one and
//     appends one event to the bundle's audit trail, which keeps the latest
//     AuditLimit events. A transition that would change nothing (enable
//     when enabled, disable when disabled, revoke when untrusted) succeeds,
//     reports changed=false and is not persisted; an Update in which nothing
//     changed writes nothing.
//   - Enable requires a current receipt (ErrNotTrusted otherwise) and never
//     writes one; only Trust sets a receipt; Revoke removes it and keeps the
//     enabled bit.
//   - A symlink, a non-regular file, a file not owned by the current user or
//     a group- or world-writable file (or home directory) is unsafe
//     (ErrUnsafe); undecodable JSON, an unknown field, an unsupported
//     schema_version or a broken invariant is malformed (ErrMalformed). Such
//     state is never overwritten, modified or moved: Load and Update fail,
//     Update before its function runs, and the error names the file and the
//     command that repairs it. A missing state.json is the empty state.
//   - state.json is schema 3: the records, then the audit trails apart
//     (docs/state.md); schemas 1 and 2 (trails inside the records) are
//     read. It is written compact, one line ending in a newline; any JSON
//     layout is read.
//   - LoadCurrent reads the same decisions as Load (enabled, receipt,
//     generations, switches, source) and refuses every fault Load refuses
//     in them; of a schema 3 file written in order it decodes nothing after
//     the key "audit" but checks the file's last bytes (a truncated file
//     is refused), so faults between that key and the end (in the trails,
//     or a key repeated there) are Load's to find. Its Records have empty audits. It can never persist anything
//     (only Update writes).
//   - Load and LoadCurrent create nothing; Update creates the home directory 0700 if it is
//     missing, the lock file 0600, and removes renameio temp files
//     (".state.json<digits>") left behind by a writer that died, while it
//     holds the lock.
//   - Update parses the bytes it is about to write and refuses to write a
//     state Load would refuse.
package state
