// Package receipts holds the value types the other packages exchange: the
// BLAKE3-256 Digest, the Token a person confirms, and the Receipt that
// records a trust decision.
//
// Invariants:
//   - A Digest's text form is exactly 64 lowercase hex digits; Parse accepts
//     nothing else.
//   - A Token's text form is exactly "<content-hex>.<capability-hex>";
//     ParseToken rejects any other length, case, separator or whitespace.
//   - A Receipt is immutable once written: a new review makes a new receipt.
package receipts
