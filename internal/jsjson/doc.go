// Package jsjson reads and writes JSON as JavaScript does: Parse is
// JSON.parse, Value.Stringify is JSON.stringify, Spread is an object
// literal's spread ({...a, ...b}) and Concat is + on strings. It is for
// the bytes Gemini CLI, a JavaScript program, gives a hook after it
// changed the hook's input (a "sequential" group's chain: the next
// hook's input is the current one with the last answer spread over it,
// or with its additionalContext added to the prompt, written anew with
// JSON.stringify).
//
// What JavaScript does that encoding/json does not:
//
//   - a string is a sequence of UTF-16 code units, so a lone surrogate
//     escape ("\ud800") is kept, and JSON.stringify writes it as that
//     escape (encoding/json reads it as U+FFFD); bytes that are not UTF-8
//     are read as Node.js decodes them (each maximal invalid subpart one
//     U+FFFD, the WHATWG decoder);
//   - a number is a double, written by Number::toString: the shortest
//     digits that read back, an exponent from 1e21 and below 1e-6
//     (1.0 is 1, 1e2 is 100, -0 is 0, a number past the double range is
//     Infinity, which JSON.stringify writes as null);
//   - an object's keys are written array indexes first (the canonical
//     decimal integers below 2^32-1, ascending), then the others in the
//     order they were first set; a repeated name keeps its first place
//     and its last value;
//   - a string is written with the short escapes \b \t \n \f \r \" \\,
//     other control characters as \u00xx, everything else as it is
//     (U+2028, U+2029, "<", "&" included).
//
// DecodeUTF8 gives the text Node.js decodes from bytes that are not
// UTF-8, for readers of a JavaScript host's files that must name things
// as the host names them (a plugin's name, a directory's).
//
// Invariants: Parse accepts exactly the JSON text json.Valid accepts
// (nested at most MaxDepth deep), never panics, and refuses anything else;
// Stringify's output is valid JSON, and Parse then Stringify of it gives
// it back unchanged; DecodeUTF8's output is valid UTF-8, and is its
// input when that is; the expected bytes in testdata/vectors.json are node
// 20's.
package jsjson
