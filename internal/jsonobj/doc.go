// Package jsonobj splits a JSON object into its members as they are
// written: in order, every occurrence of a repeated name kept, each value
// as its raw bytes. It is for readers that must see what a lenient
// decoder could make of an object (the MCP proxy) or find the one member
// a strict decoder refuses (the state file's errors); encoding/json keeps
// the last of repeated names and drops the order.
//
// Invariants: Members accepts exactly one JSON object, with nothing but
// whitespace around it, and returns its members in the order written,
// repeated names included; anything else is refused (ok false, no
// members), never a panic.
package jsonobj
