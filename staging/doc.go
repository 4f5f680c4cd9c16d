// Package staging keeps the snapshot store, $BUNDLECTL_HOME/store: one
// owner-only, read-only copy of each trusted tree under its content hash
// (the layout and guarantees are in docs/snapshots.md).
//
// Invariants:
//   - A name store/<64 hex> only ever appears by rename(2) of a complete,
//     sealed and synced copy, and disappears only by a rename aside before
//     its contents are deleted. A crash at any moment therefore leaves
//     either no snapshot or a whole one under its final name; partial trees
//     exist only as store/.tmp-* (being built) or store/.del-* (being
//     deleted).
//   - The content hash of a snapshot is computed from the very bytes
//     written into it while copying (read into a buffer, hash, write); a
//     copy whose hash is not the reviewed one is deleted and reported as a
//     *MismatchError (ErrMismatch): the source changed after review.
//   - The source is read without following any link: each file is opened
//     with one openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) on Linux, else
//     through bundle.Tree.Open (O_NOFOLLOW at every element); its inode,
//     size and mode are checked against the walk, and after it is read it
//     is rechecked as bundle.Recheck does (size, mode, mtime, ctime). Each
//     directory's inode is checked too. A changed source fails with
//     bundle.ErrChanged and nothing is staged. Nothing is ever written
//     outside the store: the copy is created below the temporary directory
//     through no link (openat2, or os.Root), files O_EXCL|O_NOFOLLOW.
//   - The bundle limits apply to the copy: the walked tree is checked
//     against them before copying, no file is read past its walked size,
//     and the bytes actually read are counted against the total.
//   - A snapshot holds each link the walk accepted (a link to a regular
//     file of the tree) as a symbolic link whose text bundlectl writes:
//     the shortest relative path to its target (bundle.LinkText), never
//     the source's text, so it resolves inside the snapshot. A link the
//     walk refused is not part of the tree and is never copied; Verify
//     refuses any link of a snapshot that does not resolve to a file of
//     it, and the re-hash covers every link's target.
//   - A snapshot has directories 0500, files 0400 (0500 when the walked
//     file was executable), all owned by the current user; the store is
//     0700 and its mode is enforced. Verify checks all of this and re-hashes
//     every byte; Stage reuses an existing snapshot only after it verifies.
//   - store/<hex>.records lists what was staged so Verify can name the path
//     that changed; it is advisory and never decides a verdict.
//
// Locking: the caller must hold the exclusive state.lock around Stage and
// GC. GC deletes .tmp-* directories, which may belong to a Stage in progress,
// so temporary directories are only ever cleaned up under the lock. Verify
// and Path only read and need no lock.
package staging
