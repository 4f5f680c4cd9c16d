// Package par runs independent pieces of work on one goroutine per
// processor.
//
// Invariant: For returns only after fn has returned for every index, each
// index is given to exactly one call, and nothing else is shared by the
// package: fn must make its own calls safe to run at once.
package par
