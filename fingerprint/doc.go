// Package fingerprint records what a full verification of a tree saw, so
// that a later check can prove the tree unchanged without re-hashing it.
//
// A Record holds the digest a full verification computed (a snapshot's
// content hash, or a source's token), a digest of the walk it hashed —
// every entry's path, kind, device, inode, size, mode, mtime and ctime in
// nanoseconds, in a fixed-width encoding — and the time the verification
// started. Proves accepts a fresh walk as proof that
// nothing a re-hash could see has changed when:
//
//   - the walk raised no finding and equals the recorded one entry for
//     entry (an added, removed, replaced or rewritten entry differs: every
//     write moves mtime and ctime, a chmod or a new hard link moves ctime,
//     a replacement changes the inode);
//   - no entry is racy: modified so close to the recorded start that the
//     coarse file-system clock cannot tell "before the hash" from "after"
//     (git's racy rule; 2 s coarse for file systems without sub-second
//     times);
//   - the record is younger than MaxAge, which bounds how long a write
//     through an already-dirty page of a shared mapping — the one change
//     that moves no timestamp (SECURITY.md) — can go unseen.
//
// Anything else means "verify in full", which then stores a new record.
// Records are a cache, not an authority: they live in $BUNDLECTL_HOME
// beside state.json and the store, owner-only, and are read only if they
// are regular, owner-only files of the current user. A same-user process
// that forges one could as well forge the state and the store.
package fingerprint
