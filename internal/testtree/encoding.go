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

// UTF32 is s in UTF-32 after a byte order mark, big-endian when be: a
// settings file Claude Code ignores (it decodes the little-endian mark's
// first two bytes as UTF-16's).
func UTF32(s string, be bool) string {
	var b []byte
	for _, r := range "\ufeff" + s {
		if be {
			b = append(b, byte(r>>24), byte(r>>16), byte(r>>8), byte(r))
		} else {
			b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		}
	}
	return string(b)
}
