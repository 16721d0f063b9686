package bloat

import (
	"slices"
	"testing"
)

// Expected counts come from tiktoken 1.0.22 (see TestEncodeKnownIDs).
func TestAnalyze(t *testing.T) {
	t.Parallel()
	const padded = "  Summarise the text below.   \n\n\n   \n\tdef f(x):\n\t\treturn x  \n\n\n\n\nThanks!\n\n  "
	paddedSpans := []Span{{0, 2}, {27, 30}, {31, 36}, {58, 60}, {61, 64}, {72, 76}}
	tests := []struct {
		name  string
		enc   Encoding
		in    string
		want  Analysis
		bytes int
	}{
		{
			name: "padded prompt", enc: O200kBase, in: padded,
			want:  Analysis{Encoding: O200kBase, Tokens: 23, NormalizedTokens: 17, BloatTokens: 6, Spans: paddedSpans},
			bytes: 19,
		},
		{
			name: "padded prompt cl100k", enc: Cl100kBase, in: padded,
			want:  Analysis{Encoding: Cl100kBase, Tokens: 23, NormalizedTokens: 17, BloatTokens: 6, Spans: paddedSpans},
			bytes: 19,
		},
		{
			name: "empty encoding is o200k_base", enc: "", in: "hello world  ",
			want:  Analysis{Encoding: O200kBase, Tokens: 3, NormalizedTokens: 2, BloatTokens: 1, Spans: []Span{{11, 13}}},
			bytes: 2,
		},
		{
			name: "clean prompt", enc: O200kBase, in: "hello world",
			want: Analysis{Encoding: O200kBase, Tokens: 2, NormalizedTokens: 2},
		},
		{
			name: "empty prompt", enc: O200kBase, in: "",
			want: Analysis{Encoding: O200kBase},
		},
		{
			name: "whitespace-only prompt", enc: O200kBase, in: " \n\n ",
			want:  Analysis{Encoding: O200kBase, Tokens: 2, NormalizedTokens: 0, BloatTokens: 2, Spans: []Span{{0, 4}}},
			bytes: 4,
		},
		{
			// "{\n" is one token, "{" alone another split: trimming the
			// final LF costs a token. Clamped to no bloat.
			name: "normalising can add a token o200k", enc: O200kBase, in: "é， //{\n",
			want:  Analysis{Encoding: O200kBase, Tokens: 3, NormalizedTokens: 4, BloatTokens: 0, Spans: []Span{{9, 10}}},
			bytes: 1,
		},
		{
			// The literal rule leaves "}\r\n\n", which splits worse than
			// "}\r\n\r\n": CRLF prompts tend to grow (see Normalize).
			name: "CRLF paragraph break grows", enc: O200kBase, in: "}\r\n\r\nfunc f() {",
			want:  Analysis{Encoding: O200kBase, Tokens: 5, NormalizedTokens: 6, BloatTokens: 0, Spans: []Span{{3, 4}}},
			bytes: 1,
		},
		{
			// " Camel" is a token and "Camel" is not: trimming the leading
			// space costs one.
			name: "normalising can add a token cl100k", enc: Cl100kBase, in: " CamelCase",
			want:  Analysis{Encoding: Cl100kBase, Tokens: 2, NormalizedTokens: 3, BloatTokens: 0, Spans: []Span{{0, 1}}},
			bytes: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := counter.Analyze(tt.enc, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Encoding != tt.want.Encoding || got.Tokens != tt.want.Tokens ||
				got.NormalizedTokens != tt.want.NormalizedTokens || got.BloatTokens != tt.want.BloatTokens ||
				!slices.Equal(got.Spans, tt.want.Spans) {
				t.Errorf("Analyze(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if n := got.RedundantBytes(); n != tt.bytes {
				t.Errorf("RedundantBytes = %d, want %d", n, tt.bytes)
			}
			if num, den := got.Ratio(); num != got.BloatTokens || den != got.Tokens {
				t.Errorf("Ratio = %d/%d, want %d/%d", num, den, got.BloatTokens, got.Tokens)
			}
		})
	}
}

func TestAnalyzeUnknownEncoding(t *testing.T) {
	t.Parallel()
	if _, err := counter.Analyze("gpt2", "x"); err == nil {
		t.Fatal("Analyze with an unknown encoding succeeded")
	}
}
