// Package jsnum reads and writes numbers as JavaScript does, for option
// values Claude Code (a JavaScript program) stores: Parse is Number() on a
// trimmed text, Format is String(n).
//
// Claude Code's settings panel reads a number option with
// `t = Number(r)` on the trimmed input r, keeps it when r is not empty and
// t is finite (and within min and max), stores the JavaScript number, and
// hands it to hooks and servers as String(t). So "0x10" is 16, "1e3" is
// 1000, "5.0" is 5, and "1_000", "Infinity" or "-0x10" are no number.
package jsnum
