// Package bundle is the model every other package uses: discovery over the
// roots, the tree walker, the Agent Plugins v1.0.0 and plugin.toml
// readers, and validation.
//
// Invariants:
//   - Discovery and Load are read-only: they write nothing, launch no
//     process and open no connection (JSON Schemas are compiled with a
//     loader that refuses every URL).
//   - Roots are searched builtin, user, workspace; the first bundle with a
//     name wins and the rest are shadowed. A bundle's ID binds its scope
//     and canonical path: "<scope>/<12 hex of BLAKE3(scope, path)>/<name>".
//   - The walker never follows a symbolic link and never opens anything but
//     directories, so a FIFO or device cannot block it; every component
//     it opens later (Tree.Open, OpenNoFollow) is opened with O_NOFOLLOW
//     relative to its parent and checked against the walked inode.
//   - Validation is a Report of every finding with its path and a stable
//     rule id (docs/validation.md, docs/tree-rules.md), never just the first
//     error. Severity Error rejects the bundle (nothing in it is loaded);
//     Skip drops one component as Agent Plugins requires and keeps the rest;
//     Warning changes nothing. Bundle.Valid means neither Error nor Skip.
//   - A finding never quotes a value that could be a secret, and every
//     string from a bundle that reaches a terminal goes through Quote or
//     Sanitize.
//   - Both manifest formats fill one model and pass through one set of
//     semantic rules (checkModel).
//   - Limits (DefaultLimits) bound entries, total and per-file bytes, depth
//     and path length; an embedding harness may pass others.
package bundle
