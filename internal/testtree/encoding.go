package testtree

import "unicode/utf16"

// UTF16LE is s in UTF-16, little-endian, after a byte order mark: a
// settings file as an editor saving "Unicode" writes it, which Claude
// Code reads and encoding/json does not.
func UTF16LE(s string) string {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

// UTF16BE is s in UTF-16, big-endian, with no byte order mark.
func UTF16BE(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return string(b)
}
