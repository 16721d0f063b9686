package bloat

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		want  string
		spans []Span
	}{
		{name: "empty", in: "", want: ""},
		{name: "whitespace only", in: " \t\n\r\f\v ", want: "", spans: []Span{{0, 7}}},
		{name: "clean text unchanged", in: "a b\nc", want: "a b\nc"},
		{name: "interior spaces kept", in: "a   b", want: "a   b"},
		{name: "leading whitespace trimmed", in: "\n\n  a", want: "a", spans: []Span{{0, 4}}},
		{name: "trailing whitespace trimmed", in: "a  \n\n", want: "a", spans: []Span{{1, 5}}},
		{name: "trailing spaces at line end", in: "a  \nb", want: "a\nb", spans: []Span{{1, 3}}},
		{name: "trailing tabs and spaces", in: "a \t \nb", want: "a\nb", spans: []Span{{1, 4}}},
		{name: "leading indentation kept", in: "a\n    b\n\tc", want: "a\n    b\n\tc"},
		{name: "indentation after blank lines kept", in: "a\n\n\n    b", want: "a\n\n    b", spans: []Span{{2, 3}}},
		{name: "one blank line kept", in: "a\n\nb", want: "a\n\nb"},
		{name: "blank lines collapse", in: "a\n\n\n\nb", want: "a\n\nb", spans: []Span{{2, 4}}},
		{name: "whitespace-only lines collapse", in: "a \n \n\n  b", want: "a\n\n  b", spans: []Span{{1, 2}, {3, 5}}},
		{name: "tab-only line collapses", in: "a\n\t\t\nb", want: "a\n\nb", spans: []Span{{2, 4}}},
		{name: "lone CRLF kept", in: "a\r\nb", want: "a\r\nb"},
		{name: "spaces before CRLF kept", in: "a  \r\nb", want: "a  \r\nb"},
		{name: "CRLF paragraph loses one CR", in: "a\r\n\r\nb", want: "a\r\n\nb", spans: []Span{{3, 4}}},
		{name: "CRLF blank lines collapse", in: "a\r\n\r\n\r\nb", want: "a\r\n\nb", spans: []Span{{3, 6}}},
		{name: "form feed and vertical tab in a line kept", in: "a\f\vb", want: "a\f\vb"},
		{name: "form feed line collapses", in: "a\n\f\nb", want: "a\n\nb", spans: []Span{{2, 3}}},
		{name: "vertical tab before LF kept", in: "a \v\nb", want: "a \v\nb"},
		{name: "spaces before vertical tab kept", in: "a \v \nb", want: "a \v\nb", spans: []Span{{3, 4}}},
		{name: "NBSP is content", in: "\u00a0a\u00a0\n\u00a0\nb\u00a0", want: "\u00a0a\u00a0\n\u00a0\nb\u00a0"},
		{name: "NBSP line is not blank", in: "a\n \u00a0 \nb", want: "a\n \u00a0\nb", spans: []Span{{5, 6}}},
		{name: "ideographic space is content", in: "a\u3000\n\n\nb", want: "a\u3000\n\nb", spans: []Span{{5, 6}}},
		{name: "line separator is not a line break", in: "a \u2028 b", want: "a \u2028 b"},
		{name: "invalid UTF-8 left alone", in: "\xff  \n\xfe", want: "\xff\n\xfe", spans: []Span{{1, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Redundant(tt.in); !slices.Equal(got, tt.spans) {
				t.Errorf("Redundant(%q) = %v, want %v", tt.in, got, tt.spans)
			}
			checkNormalize(t, tt.in)
		})
	}
}

// Not parallel: testing.AllocsPerRun refuses to run in a parallel test.
func TestNormalizeReturnsInputWhenClean(t *testing.T) {
	in := "already\n\nclean"
	if got := Normalize(in); got != in {
		t.Fatalf("Normalize(%q) = %q", in, got)
	}
	if allocs := testing.AllocsPerRun(100, func() { Normalize(in) }); allocs != 0 {
		t.Errorf("Normalize of clean text allocated %v times, want 0", allocs)
	}
}

func TestNormalizeSample(t *testing.T) {
	t.Parallel()
	checkNormalize(t, sampleText(20<<10))
}

// The literal definition from MISSION.md, as three regexps run in the order
// the text gives, with the whitespace class spelled out. Normalize must
// agree with it; it exists only as a test oracle because it makes three
// passes and copies.
var (
	literalTrim     = regexp.MustCompile(`^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$`)
	literalTrailing = regexp.MustCompile(`(?m)[ \t]+$`) // (?m)$ is "before LF or at end"
	literalBlank    = regexp.MustCompile(`\n[ \t\n\r\f\v]*\n`)
)

func literalNormalize(s string) string {
	s = literalTrim.ReplaceAllString(s, "")
	s = literalTrailing.ReplaceAllString(s, "")
	return literalBlank.ReplaceAllString(s, "\n\n")
}

func isWhitespace(r rune) bool { return r < 0x80 && isSpace[r] }

// checkNormalize asserts every property Normalize and Redundant promise.
func checkNormalize(t *testing.T, in string) {
	t.Helper()
	got := Normalize(in)
	if want := literalNormalize(in); got != want {
		t.Fatalf("Normalize(%q) = %q, literal definition gives %q", in, got, want)
	}
	if again := Normalize(got); again != got {
		t.Fatalf("not idempotent: Normalize(%q) = %q, again %q", in, got, again)
	}
	if len(got) > len(in) {
		t.Fatalf("Normalize(%q) = %q is longer", in, got)
	}
	if a, b := strings.Map(dropWhitespace, in), strings.Map(dropWhitespace, got); a != b {
		t.Fatalf("Normalize(%q) = %q changed non-whitespace: %q vs %q", in, got, a, b)
	}
	spans := Redundant(in)
	last := -1
	for _, s := range spans {
		if s.Start <= last || s.End <= s.Start || s.End > len(in) {
			t.Fatalf("Redundant(%q) = %v: spans must be non-empty, ordered, apart and in range", in, spans)
		}
		for i := s.Start; i < s.End; i++ {
			if !isSpace[in[i]] {
				t.Fatalf("Redundant(%q) = %v covers non-whitespace byte %d", in, spans, i)
			}
		}
		last = s.End
	}
	if del := deleteSpans(in, spans); del != got {
		t.Fatalf("deleting Redundant(%q) = %v gives %q, Normalize gives %q", in, spans, del, got)
	}
	if rest := Redundant(got); rest != nil {
		t.Fatalf("Redundant(Normalize(%q)) = %v, want none", in, rest)
	}
}

func dropWhitespace(r rune) rune {
	if isWhitespace(r) {
		return -1
	}
	return r
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", " ", "\n", "a", "a  \nb", "a \n \n\n  b", "a\r\n\r\nb", "a  \r\nb", "\t\tx\n\n\n\n\ty",
		"a\f\n\v\nb", "a\u00a0\n\u00a0\nb", "  lead", "trail \t ", "\xff \n\n\xfe", "a\n\r\n \r\nb",
		" \n x \n\n y \t\n\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkNormalize(t, in)
	})
}
