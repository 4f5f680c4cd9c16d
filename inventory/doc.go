// Package inventory is the capability inventory: everything a bundle may
// do or run, in every host it carries a manifest for, as a typed value
// with one canonical JSON form ("bundlectl-capabilities-v2",
// docs/hashing.md §2).
//
// Invariants:
//   - Of builds the inventory from a loaded bundle model; skipped
//     components are in no inventory. The same model always gives the same
//     canonical bytes: keys sorted, zero values omitted, named components
//     sorted by name, hooks in precedence order, argv as written, sets
//     sorted and deduplicated.
//   - Digest is BLAKE3-256 over Tag and the canonical bytes: the capability
//     hash a receipt binds.
//   - Parse accepts only this schema, strictly (no unknown field, nothing
//     after the object): a receipt written under another schema is never
//     read as this one. The runtime runs only from an inventory whose
//     bytes still hash to the receipt's capability hash.
//   - No host value is ever recorded: host variables, env_from sources and
//     credential headers are recorded by name; user options by key and
//     kind, never their values.
package inventory
