package bloat

import (
	"unicode"
	"unicode/utf8"
)

// This file splits text into the pieces tiktoken's regular expressions
// find, before BPE runs on each piece. The patterns, from tiktoken's
// tiktoken_ext/openai_public.py, are
//
//	cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	             ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//	o200k_base:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	             [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	             \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// They are matched by hand rather than with a backtracking regexp library:
// the Go ports of tiktoken that do so were either wrong on exactly the
// whitespace this package measures (a code-generated matcher backtracks
// "\s*[\r\n]+" to the first newline instead of the last, splitting
// "\n \n" in two) or slow on it (a 100 KB run of spaces took seconds).
// Each function below returns the byte length of the leftmost-first match
// at the start of s, reproducing the backtracking the pattern implies; the
// comment on each branch says which. Every position matches some branch,
// so the length is always at least one rune.
//
// Classes follow Rust's regex crate, which tiktoken uses: \s is Unicode
// White_Space (Go's unicode.IsSpace is the same set), \p{..} are Unicode
// general categories from Go's unicode tables.

// Rune classes, as bits.
const (
	cLetter  = 1 << iota // \p{L}
	cNumber              // \p{N}
	cSpace               // \s
	cUpper               // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k's "cased start"
	cLower               // [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k's "lower tail"
	cNewline             // \r or \n
)

// asciiClass caches class for the bytes below 0x80, which is most text.
var asciiClass [utf8.RuneSelf]uint8

func init() {
	for b := range utf8.RuneSelf {
		asciiClass[b] = classOf(rune(b))
	}
}

func classOf(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsLetter(r):
		c |= cLetter
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) {
			c |= cUpper
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) {
			c |= cLower
		}
	case unicode.IsMark(r):
		c |= cUpper | cLower
	case unicode.IsNumber(r):
		c |= cNumber
	case unicode.IsSpace(r):
		c |= cSpace
		if r == '\r' || r == '\n' {
			c |= cNewline
		}
	}
	return c
}

// next decodes the rune at s[i:] and returns its class and byte size. The
// caller guarantees i < len(s) and that s is valid UTF-8.
func next(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOf(r), n
}

// isPunct reports [^\s\p{L}\p{N}].
func isPunct(c uint8) bool { return c&(cSpace|cLetter|cNumber) == 0 }

// isPrefix reports [^\r\n\p{L}\p{N}], the optional rune before a word.
func isPrefix(c uint8) bool { return c&(cNewline|cLetter|cNumber) == 0 }

// run returns the end of the longest run of runes from i whose class has
// one of the bits in want.
func run(s string, i int, want uint8) int {
	for i < len(s) {
		c, n := next(s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i:],
// or 0. Case folding is Unicode simple folding, as in Rust's regex: s also
// matches U+017F (ſ); none of the other letters has a non-ASCII fold.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return 0
	}
	rest := s[i+1:]
	if len(rest) == 0 {
		return 0
	}
	lower := func(b byte) byte { return b | 0x20 }
	switch lower(rest[0]) {
	case 's', 't', 'm', 'd':
		if rest[0] < utf8.RuneSelf {
			return 2
		}
	case 'r', 'v':
		if len(rest) >= 2 && lower(rest[1]) == 'e' {
			return 3
		}
	case 'l':
		if len(rest) >= 2 && lower(rest[1]) == 'l' {
			return 3
		}
	}
	if len(rest) >= 2 && rest[0] == 0xC5 && rest[1] == 0xBF { // ſ
		return 3
	}
	return 0
}

// whitespace matches the three whitespace branches shared by both patterns
// at s[0], which is a \s rune:
//
//   - \s*[\r\n]+: \s* first takes the whole run, then gives back runes until
//     [\r\n]+ fits, so the piece ends just after the run's LAST CR or LF;
//   - \s+(?!\S): the whole run at the end of text, else the run less its
//     last rune (which then prefixes the next word or punctuation), if that
//     leaves anything;
//   - \s+: the whole run, here a single rune before non-space.
func whitespace(s string) int {
	end, lastNL, lastRune := 0, -1, 0
	for end < len(s) {
		c, n := next(s, end)
		if c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			lastNL = end + n
		}
		lastRune = n
		end += n
	}
	switch {
	case lastNL >= 0:
		return lastNL
	case end == len(s) || end-lastRune == 0:
		return end
	default:
		return end - lastRune
	}
}

// punctuation matches " ?[^\s\p{L}\p{N}]+" followed by tail* where tail is
// [\r\n] (cl100k) or [\r\n/] (o200k), or returns 0. The optional space is
// taken only when punctuation follows it; otherwise the branch starts at
// s[0] itself, which then must be punctuation.
func punctuation(s string, slash bool) int {
	i := 0
	if s[0] == ' ' && len(s) > 1 {
		if c, _ := next(s, 1); isPunct(c) {
			i = 1
		}
	}
	if c, _ := next(s, i); !isPunct(c) {
		return 0
	}
	for i < len(s) {
		c, n := next(s, i)
		if !isPunct(c) {
			break
		}
		i += n
	}
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || slash && s[i] == '/') {
		i++
	}
	return i
}

// numbers matches \p{N}{1,3} at s[0], or returns 0.
func numbers(s string) int {
	i := 0
	for k := 0; k < 3 && i < len(s); k++ {
		c, n := next(s, i)
		if c&cNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// pieceCl100k returns the byte length of the cl100k_base piece at s[0].
func pieceCl100k(s string) int {
	if n := contraction(s, 0); n > 0 {
		return n
	}
	c0, n0 := next(s, 0)
	// [^\r\n\p{L}\p{N}]?\p{L}+: try with the optional rune, then without.
	if isPrefix(c0) && n0 < len(s) {
		if e := run(s, n0, cLetter); e > n0 {
			return e
		}
	}
	if c0&cLetter != 0 {
		return run(s, 0, cLetter)
	}
	if n := numbers(s); n > 0 {
		return n
	}
	if n := punctuation(s, false); n > 0 {
		return n
	}
	if c0&cSpace != 0 {
		return whitespace(s)
	}
	return n0 // unreachable: every rune is letter, number, space or punct
}

// pieceO200k returns the byte length of the o200k_base piece at s[0].
func pieceO200k(s string) int {
	c0, n0 := next(s, 0)
	// Branch 1 then branch 2, each first with the optional prefix rune and
	// then without it, as the regexp backtracks.
	starts := [2]int{n0, 0}
	if !isPrefix(c0) || n0 == len(s) {
		starts[0] = -1
	}
	for _, j := range starts {
		if j < 0 {
			continue
		}
		if e := casedWord(s, j); e > 0 {
			return e + contraction(s, e)
		}
	}
	for _, j := range starts {
		if j < 0 {
			continue
		}
		// [upper]+[lower]*: no backtracking needed, the tail may be empty.
		if e := run(s, j, cUpper); e > j {
			e = run(s, e, cLower)
			return e + contraction(s, e)
		}
	}
	if n := numbers(s); n > 0 {
		return n
	}
	if n := punctuation(s, true); n > 0 {
		return n
	}
	if c0&cSpace != 0 {
		return whitespace(s)
	}
	return n0 // unreachable
}

// casedWord matches [upper]*[lower]+ at s[j:] and returns its end, or 0.
// The greedy [upper]* takes the whole run of upper runes; if a lower rune
// follows, [lower]+ takes its run. Otherwise [upper]* gives back runes from
// the right until one it gave back is also lower (Lm, Lo and marks are in
// both sets); [lower]+ then holds just that rune, since the runes after it
// in the run are not lower.
func casedWord(s string, j int) int {
	end := j
	lastLower := -1 // end of the last upper-run rune that is also lower
	for end < len(s) {
		c, n := next(s, end)
		if c&cUpper == 0 {
			break
		}
		end += n
		if c&cLower != 0 {
			lastLower = end
		}
	}
	if end < len(s) {
		if c, _ := next(s, end); c&cLower != 0 {
			return run(s, end, cLower)
		}
	}
	if lastLower > 0 {
		return lastLower
	}
	return 0
}
