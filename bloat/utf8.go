package bloat

import (
	"strings"
	"unicode/utf8"
)

// validUTF8 returns s with each maximal invalid UTF-8 subsequence replaced
// by U+FFFD, the "substitution of maximal subparts" that Python's
// bytes.decode(errors="replace") and the WHATWG decoder apply. A prompt that
// reached tiktoken through Python or JavaScript went through exactly that,
// so counting the replaced text counts what such a client would have seen.
// (strings.ToValidUTF8 differs: it replaces a whole run of invalid bytes
// with one U+FFFD.) Valid input is returned as it is, without a copy.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
			n = maximalSubpart(s)
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// maximalSubpart returns the length of the invalid sequence at s[0]: the
// longest prefix that starts a well-formed sequence (Unicode Table 3-7)
// without completing it, or 1 for a byte that cannot start one.
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		c := s[i]
		if i == 1 && (c < lo || c > hi) || i > 1 && (c < 0x80 || c > 0xBF) {
			break
		}
	}
	return i
}
