// Package review computes what a person confirms before a bundle may run:
// the content hash ("bundle tree v1"), the capability inventory and its
// hash ("bundlectl-capabilities-v1"), the token joining them, and the
// human and JSON review that shows them (docs/hashing.md).
//
// Invariants:
//   - The content hash is over exactly the walked tree. A tree whose walk
//     reported an error is never hashed (TreeError); a file that is not the
//     walked one, or changes while it is read, fails the hash with an error
//     wrapping bundle.ErrChanged. The result never depends on scheduling.
//   - Files are opened only through a bundle.Opener (Tree.Open's checks,
//     plus the identity of every directory on the way): no symbolic link is
//     followed and a FIFO cannot block the hash. No file is read whole into
//     memory: each worker reuses one buffer, and large files are mapped.
//   - The inventory is canonical JSON: the same bundle model always gives
//     the same bytes, every authority-relevant field is in it, and no host
//     value (an environment variable's content) ever is: env_from and the
//     header variables are recorded by name.
//   - A Review of a bundle that is invalid, blocked or could not be hashed
//     carries no token, and its rendering offers no trust command.
//   - What the review's text says about how a host treats a part of the
//     bundle, review --json says too, as host_notes (HostNotes): a part,
//     a host, a stable fact code and the words. The review is offline:
//     it resolves no host name, and says when the runtime checks one.
//   - Every string from a bundle is rendered through bundle.Quote or
//     bundle.Sanitize: a review cannot move the cursor, clear the screen,
//     reorder text or fake a line.
package review
