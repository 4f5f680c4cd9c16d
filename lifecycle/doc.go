// Package lifecycle ties the bundle model, review, staging and state into
// the operations of the trust lifecycle — trust, enable, disable, revoke,
// verify, gc — and evaluates each bundle's status.
//
// Invariants:
//   - A bundle is active only when it is enabled, trusted for its current
//     content and capability hashes, valid, applicable to this host and
//     free of inactive declarations. Every other status carries a reason.
//   - Trust never enables; revoke never changes the enabled bit.
//   - Install never replaces anything in a root. A taken name is refused,
//     but for a tree at exactly that name with no recorded source that is
//     exactly the fetched tree (what an install killed before its state
//     write leaves): its source is recorded, and a receipt at its id is
//     kept only when it covers that tree.
//   - An update notes in the home (SwapIntentsName), under the state lock
//     and before it swaps a bundle's directory, the source record it is
//     about to write; killed between the swap and the state write, it
//     leaves a tree the next update recognises by that note and its
//     content hash, and completes, never taking it for a local edit. A
//     tree that is neither the recorded one nor the noted one is an edit.
//   - A workspace uninstall reads the other homes' markers and moves the
//     tree out, and a workspace update reads them and swaps the new tree
//     in, under the workspace lock held exclusively; installs and syncs
//     of every home hold it shared while they look at and use the root,
//     so none records a tree that is then deleted or replaced. An update
//     of a tree another home's marker names is refused without --force.
//   - Install, update, uninstall and sync fetch and move trees inside a
//     private directory each makes in its checked tmp directory and holds
//     open (tmpHolder): moves and removals there go by descriptor, and a
//     fetch or read that needs a path is refused when the path no longer
//     leads to the held directory before or after it.
//   - They move trees into and out of the workspace's root
//     (.bundlectl/bundles) only relative to the root held open
//     (heldRoot, opened with O_NOFOLLOW from .bundlectl), after checking
//     that its path still leads there: a root swapped for a link is
//     refused, and no move goes where a link points. The user root is
//     this user's own and used by path.
//   - The homes' markers (.bundlectl/homes/<name>/<home key>) are written
//     (a temporary file renamed over the marker), read and removed only
//     relative to homes and homes/<name> held open, each opened with
//     O_NOFOLLOW from the one before: none goes through a link.
//   - Every transition is a read-modify-write of the state under its lock,
//     re-read after the lock is taken.
//   - gc removes only what nothing can claim: snapshots and views no
//     receipt references, temporary files of killed writes, fetch leftovers
//     while no fetch runs, empty directories a failed install or sync made
//     and recorded (while no command holds their locks), this home's
//     workspace markers that no record with a source backs, and the options file of a bundle that no state
//     record holds, no root of this invocation has, and these roots own. A
//     root that cannot be scanned keeps every options file: a bundle it
//     hides is not gone.
package lifecycle
