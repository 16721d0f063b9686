package bloat

import (
	"iter"
	"strings"
)

// Span is a half-open byte range [Start, End) of the original prompt.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// isSpace is the whitespace of MISSION.md: space, tab, LF, CR, FF, VT, and
// nothing else. It is spelled out rather than taken from elsewhere because
// the usual sets differ: Go's regexp \s lacks VT, unicode.IsSpace adds
// U+0085 and U+00A0. All six are ASCII, so a byte test is exact on UTF-8
// (no multi-byte sequence contains a byte below 0x80) and on invalid UTF-8
// alike.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '\v': true}

// Normalize applies MISSION.md's normalisation:
//
//  1. trim the whole prompt;
//  2. strip trailing spaces and tabs at each line end;
//  3. replace every match of \n\s*\n by "\n\n", \s being isSpace.
//
// A line ends at LF, the only line break the rules name; CR is whitespace,
// not a line end. Taken literally, that gives CRLF text this treatment:
//
//   - a lone "\r\n" between two lines is kept as it is, and so are spaces or
//     tabs before its CR ("a  \r\nb" is unchanged), because step 2 looks for
//     them right before an LF and finds CR there;
//   - a paragraph break "\r\n\r\n" matches step 3 from its first LF, so it
//     becomes "\r\n\n": the CR of the blank line is reported redundant, one
//     byte per paragraph break.
//
// So for CRLF text the rule strips little (no trailing blanks, only some
// CRs) and the mixed line ends it leaves often cost more tokens than they
// save (see Analysis.BloatTokens). That is what the normative definition
// says; a client that sends LF gets the intended measure. Treating "\r\n"
// as a line end would need MISSION.md to say so.
//
// The steps may run in any order with the same result: each one deletes
// whitespace inside a maximal whitespace run and never joins two runs, and
// within a run they act on disjoint parts (see redundant). Normalize is
// idempotent, never lengthens its input and keeps the sequence of
// non-whitespace bytes, U+00A0 and other Unicode spaces included.
//
// The output is exactly the input with every Span of Redundant deleted.
func Normalize(prompt string) string {
	var b strings.Builder
	last := 0
	for s := range redundant(prompt) {
		if last == 0 {
			// First span: one allocation for the whole output, at most the
			// removed bytes too large.
			b.Grow(len(prompt))
		}
		b.WriteString(prompt[last:s.Start])
		last = s.End
	}
	if last == 0 {
		// Spans are never empty, so no span was found: return the input
		// itself rather than a copy.
		return prompt
	}
	b.WriteString(prompt[last:])
	return b.String()
}

// Redundant returns, in order, the byte ranges of prompt that Normalize
// deletes; they do not overlap or touch. It is meant for highlighting in a
// UI: each span is whitespace the client could have left out.
//
// Where a run of blank lines collapses, the first and the last LF of the run
// are the two that Normalize keeps, and the span is everything between
// them: in "a \n \n\n  b" the spans are [1,2) (a trailing space) and [3,5)
// (" \n"), and Normalize gives "a\n\n  b". Nil means nothing to remove.
func Redundant(prompt string) []Span {
	var spans []Span
	for s := range redundant(prompt) {
		spans = append(spans, s)
	}
	return spans
}

// redundant yields the spans Normalize deletes, found one maximal
// whitespace run at a time. For a run R:
//
//   - at the start or at the end of the prompt, all of R goes (step 1);
//   - with no LF, R stays: it is inside a line;
//   - otherwise let R = A LF M LF' B, with LF the first and LF' the last LF
//     of R (the same byte when R holds one LF, and then there is no M).
//     Step 2 removes the longest suffix of A made of spaces and tabs; step
//     3 replaces LF M LF' by LF LF, that is, it removes M. B, the next
//     line's indentation, stays. Trailing blanks on the lines inside M are
//     in M already, so steps 2 and 3 never claim the same byte.
func redundant(prompt string) iter.Seq[Span] {
	return func(yield func(Span) bool) {
		n := len(prompt)
		i := 0
		for i < n {
			if !isSpace[prompt[i]] {
				i++
				continue
			}
			start, first, last := i, -1, -1
			for ; i < n && isSpace[prompt[i]]; i++ {
				if prompt[i] == '\n' {
					if first < 0 {
						first = i
					}
					last = i
				}
			}
			switch {
			case start == 0 || i == n:
				if !yield(Span{start, i}) {
					return
				}
			case first >= 0:
				t := first
				for t > start && (prompt[t-1] == ' ' || prompt[t-1] == '\t') {
					t--
				}
				if t < first && !yield(Span{t, first}) {
					return
				}
				if last > first+1 && !yield(Span{first + 1, last}) {
					return
				}
			}
		}
	}
}
