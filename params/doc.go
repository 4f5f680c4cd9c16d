// Package params checks, compiles and applies the JSON Schema of a tool's
// input (the "params" of a dev.bundlectl tool), with
// github.com/google/jsonschema-go: draft 2020-12 (and draft-07 when the
// schema says so).
//
// Invariants:
//   - Nothing is ever fetched: every reference that is not local to the
//     schema ("#…") is refused when the schema is checked, and the
//     resolver is given no loader.
//   - Check is cheap enough to run on every discovery of an untrusted
//     bundle: it decodes the schema and parses (never compiles) its
//     patterns, so a manifest of thousands of patterns costs no more than
//     reading them. Compile resolves the schema, compiling its patterns, and
//     runs only for a tool about to be called.
//   - Problems name where the input breaks the schema and which rule it
//     breaks, never a value or key taken from the input; what they name
//     comes from the schema (for properties it does not allow, the ones it
//     declares there).
//
// The library replaced one that compiled every draft's metaschema when
// the process started (about 4 ms of every bundlectl invocation, more than
// the rest of a hook's fixed cost).
package params
