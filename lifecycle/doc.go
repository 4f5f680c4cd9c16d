// Package lifecycle ties the bundle model, review, staging and state into
// the operations of the trust lifecycle — trust, enable, disable, revoke,
// verify, gc — and evaluates each bundle's status.
//
// Invariants:
//   - A bundle is active only when it is enabled, trusted for its current
//     content and capability hashes, valid, applicable to this host and
//     free of inactive declarations. Every other status carries a reason.
//   - Trust never enables; revoke never changes the enabled bit.
//   - Every transition is a read-modify-write of the state under its lock,
//     re-read after the lock is taken.
package lifecycle
