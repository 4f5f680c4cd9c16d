// Package jsonobj splits a JSON object into its members as they are
// written: in order, every occurrence of a repeated name kept, each value
// as its raw bytes. It is for readers that must see what a lenient
// decoder could make of an object (the MCP proxy) or find the one member
// a strict decoder refuses (the state file's errors); encoding/json keeps
// the last of repeated names and drops the order.
//
// Scan checks a whole document in one pass, as fast as a hook event of
// 16 MiB on every tool call needs: one JSON value, no name twice in an
// object (nor, inside the top level, two names equal in any letter
// case), nested at most as deep as encoding/json allows.
//
// It also reads JSON into structs as the hosts read it (UnmarshalExact):
// encoding/json matches a member to a struct field in any letter case,
// JavaScript's JSON.parse and Rust's serde only by its exact name.
//
// Invariants: Members accepts exactly one JSON object, with nothing but
// whitespace around it, and returns its members in the order written,
// repeated names included; anything else is refused (ok false, no
// members), never a panic. UnmarshalExact fills a struct field only from
// a member of exactly its name (the last, when the name is repeated), at
// every level the type describes, and refuses what json.Unmarshal
// refuses. Scan accepts exactly what json.Valid accepts, less any object
// with a name its KeyRule refuses (the answers of a Decoder.Token walk
// with a set of names per object: FuzzScan), in one pass, never a panic;
// the members it returns share its input's bytes.
package jsonobj
