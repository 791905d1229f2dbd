package fence

import "bytes"

// Index is bytes.Index(text, []byte(key)) for the markers readers look for
// in a whole response, found from the key's byte that text is least likely
// to hold (rareness) with bytes.IndexByte, then compared whole.
// bytes.Index starts from the key's first byte the same way but, after a
// few false starts (the "<" of every "<<<<<<< SEARCH" line when looking for
// "<replace_in_file>", the quotes of every line of code when looking for
// "\"apply_patch_call\""), falls back to a search that tries every byte:
// tens of milliseconds on a 10 MB answer, per marker and per reader.
// Index costs one IndexByte pass plus a comparison per false start.
func Index(text []byte, key string) int {
	if len(key) == 0 {
		return 0
	}
	r := 0
	for i := 1; i < len(key); i++ {
		if rareness(key[i]) > rareness(key[r]) {
			r = i
		}
	}
	for off := r; off < len(text); {
		i := bytes.IndexByte(text[off:], key[r])
		if i < 0 {
			return -1
		}
		if at := off + i - r; at+len(key) <= len(text) && string(text[at:at+len(key)]) == key {
			return at
		}
		off += i + 1
	}
	return -1
}

// Contains reports whether text holds key (Index).
func Contains(text []byte, key string) bool { return Index(text, key) >= 0 }

// rareness ranks a byte by how seldom code and prose hold it: markers'
// punctuation first, then capitals and digits, then lower-case letters, and
// white space, quotes and brackets last.
func rareness(c byte) int {
	switch {
	case bytes.IndexByte([]byte("~^|#*@$%_`"), c) >= 0:
		return 4
	case c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '<', c == '>', c == '+', c == '=':
		return 3
	case c >= 'a' && c <= 'z', c >= 0x80:
		return 2
	case c == ' ', c == '\n', c == '"', c == '(', c == ')', c == '{', c == '}', c == ',', c == '.', c == ';', c == '\t':
		return 0
	}
	return 1
}
