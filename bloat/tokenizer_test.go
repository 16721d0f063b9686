package bloat

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// counter is shared by the tests, as a service shares one: the
// vocabularies load once per test binary, and sharing exercises concurrent
// use under -race.
var counter Counter

// Reference token ids. "tiktoken tests" are asserted in tiktoken's own
// tests/test_encoding.py; "tiktoken 1.0.22" were produced by the npm
// package tiktoken 1.0.22, the WASM build of OpenAI's Rust core, with
// encode_ordinary.
func TestEncodeKnownIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		enc  Encoding
		text string
		ids  []uint32
	}{
		{"tiktoken tests: hello world", Cl100kBase, "hello world", []uint32{15339, 1917}},
		{"tiktoken tests: rer", Cl100kBase, "rer", []uint32{38149}},
		{"tiktoken tests: contraction prefix", Cl100kBase, "'rer", []uint32{2351, 81}},
		{"tiktoken tests: newline space", Cl100kBase, "today\n ", []uint32{31213, 198, 220}},
		{"tiktoken tests: whitespace-only line", Cl100kBase, "today\n \n", []uint32{31213, 27907}},
		{"tiktoken tests: two-space line", Cl100kBase, "today\n  \n", []uint32{31213, 14211}},
		{"tiktoken tests: NEL", Cl100kBase, " \u00850", []uint32{220, 126, 227, 15}},
		{"tiktoken tests: emoji", Cl100kBase, "👍", []uint32{9468, 239, 235}},
		{"tiktoken 1.0.22: hello world", O200kBase, "hello world", []uint32{24912, 2375}},
		{"tiktoken 1.0.22: whitespace-only line", O200kBase, "today\n \n", []uint32{58744, 47812}},
		{"tiktoken 1.0.22: two-space line", O200kBase, "today\n  \n", []uint32{58744, 31835}},
		{"tiktoken 1.0.22: newline space", O200kBase, "today\n ", []uint32{58744, 198, 220}},
		// A whitespace-only line between words is one piece up to the last
		// LF; a code-generated Go port split it in two.
		{"tiktoken 1.0.22: blank line between words", O200kBase, "x\n \nI", []uint32{87, 47812, 40}},
		{"tiktoken 1.0.22: blank line between words cl100k", Cl100kBase, "x\n \nI", []uint32{87, 27907, 40}},
		{"tiktoken 1.0.22: CRLF paragraph", O200kBase, "a\r\n\r\nb", []uint32{64, 1414, 65}},
		{"tiktoken 1.0.22: CRLF paragraph normalised", O200kBase, "a\r\n\nb", []uint32{64, 46865, 65}},
		{"tiktoken 1.0.22: NEL", O200kBase, " \u00850", []uint32{220, 126, 227, 15}},
		{"tiktoken 1.0.22: emoji", O200kBase, "👍", []uint32{82514}},
		{"tiktoken 1.0.22: NBSP is not a space token", O200kBase, "a\u00a0\u00a0b", []uint32{64, 5310, 5310, 65}},
		{"tiktoken 1.0.22: special tokens are text", O200kBase, "hello <|endoftext|>", []uint32{24912, 464, 91, 419, 1440, 919, 91, 29}},
		{"tiktoken 1.0.22: special tokens are text cl100k", Cl100kBase, "hello <|endoftext|>", []uint32{15339, 83739, 8862, 728, 428, 91, 29}},
		{"tiktoken 1.0.22: mixed", O200kBase, "I'm can't HELLO'S camelCaseWord  123456 \n\n  x",
			[]uint32{15390, 8535, 58527, 2699, 31233, 83330, 6187, 12929, 220, 220, 7633, 19354, 1202, 220, 1215}},
		{"tiktoken 1.0.22: mixed cl100k", Cl100kBase, "I'm can't HELLO'S camelCaseWord  123456 \n\n  x",
			[]uint32{40, 2846, 649, 956, 38757, 1623, 13575, 50252, 4301, 11116, 220, 220, 4513, 10961, 4815, 220, 865}},
		{"tiktoken 1.0.22: CJK and emoji", O200kBase, "你好，世界 🌍🚀", []uint32{177519, 979, 28428, 130321, 235, 112927, 222}},
		{"tiktoken 1.0.22: CJK and emoji cl100k", Cl100kBase, "你好，世界 🌍🚀",
			[]uint32{57668, 53901, 3922, 3574, 244, 98220, 11410, 234, 235, 9468, 248, 222}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := counter.encode(tt.enc, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.ids) {
				t.Errorf("%s %q = %v, want %v", tt.enc, tt.text, got, tt.ids)
			}
			if n, _ := counter.Count(tt.enc, tt.text); n != len(tt.ids) {
				t.Errorf("Count = %d, want %d", n, len(tt.ids))
			}
		})
	}
}

// TestCountRepetitive uses the inputs of tiktoken's
// test_catastrophically_repetitive, with counts from tiktoken 1.0.22. Each
// is one long piece: they check the merge, and that it takes no time.
func TestCountRepetitive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		c      string
		counts [3][2]int // {o200k, cl100k} for c*10000, " "+c*10000, " "+c*10000+"\n"
	}{
		{"caret", "^", [3][2]int{{1250, 2500}, {1253, 2502}, {1254, 2503}}},
		{"zero", "0", [3][2]int{{3334, 3334}, {3335, 3335}, {3336, 3336}}},
		{"letter", "a", [3][2]int{{1250, 1250}, {1252, 1252}, {1253, 1253}}},
		{"contraction", "'s", [3][2]int{{10000, 10000}, {10001, 10001}, {10002, 10002}}},
		{"space", " ", [3][2]int{{79, 79}, {79, 79}, {79, 79}}},
		{"newline", "\n", [3][2]int{{625, 313}, {627, 314}, {627, 315}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			big := strings.Repeat(tt.c, 10000)
			for i, text := range []string{big, " " + big, " " + big + "\n"} {
				for j, enc := range []Encoding{O200kBase, Cl100kBase} {
					got, err := counter.Count(enc, text)
					if err != nil {
						t.Fatal(err)
					}
					if want := tt.counts[i][j]; got != want {
						t.Errorf("variant %d, %s: Count = %d, want %d", i, enc, got, want)
					}
				}
			}
		})
	}
}

// corpusCase is one line of testdata/tiktoken_counts.jsonl; see
// testdata/README.md for how it was made.
type corpusCase struct {
	Text       string `json:"text_b64"`
	Normalized string `json:"normalized_b64"`
	O200k      [2]int `json:"o200k_base"`
	Cl100k     [2]int `json:"cl100k_base"`
}

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/tiktoken_counts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*string{&c.Text, &c.Normalized} {
			b, err := base64.StdEncoding.DecodeString(*p)
			if err != nil {
				t.Fatal(err)
			}
			*p = string(b)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 500 {
		t.Fatalf("corpus has %d cases, want at least 500", len(cases))
	}
	return cases
}

// TestCountCorpus compares counts with tiktoken's on 525 varied texts
// (whitespace of every kind, CRLF, contractions, marks, scripts, emoji,
// invalid UTF-8), before and after normalisation, and Normalize with an
// independent JavaScript implementation of the rules.
func TestCountCorpus(t *testing.T) {
	t.Parallel()
	for i, c := range readCorpus(t) {
		// The corpus normalised the text as decoded by the client; Normalize
		// works on bytes and must commute with that decoding.
		if got := validUTF8(Normalize(c.Text)); got != c.Normalized {
			t.Errorf("case %d: Normalize(%q) = %q, want %q", i, c.Text, got, c.Normalized)
		}
		for _, e := range []struct {
			enc  Encoding
			want [2]int
		}{{O200kBase, c.O200k}, {Cl100kBase, c.Cl100k}} {
			got0, _ := counter.Count(e.enc, c.Text)
			got1, _ := counter.Count(e.enc, c.Normalized)
			if got := [2]int{got0, got1}; got != e.want {
				t.Errorf("case %d, %s: counts of %q and its normalisation = %v, want %v", i, e.enc, c.Text, got, e.want)
			}
		}
	}
}

// TestVocabularyIsOfficial pins the embedded rank files to the SHA-256
// that tiktoken itself checks (expected_hash in openai_public.py).
func TestVocabularyIsOfficial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		enc    Encoding
		file   string
		sha256 string
		ranks  int
	}{
		{O200kBase, "o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", 199998},
		{Cl100kBase, "cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 100256},
	}
	for _, tt := range tests {
		t.Run(string(tt.enc), func(t *testing.T) {
			t.Parallel()
			data, err := assets.Assets.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != tt.sha256 {
				t.Errorf("sha256(%s) = %s, want %s", tt.file, got, tt.sha256)
			}
			b, _, err := counter.encoding(tt.enc)
			if err != nil {
				t.Fatal(err)
			}
			if b.ranks.len() != tt.ranks {
				t.Errorf("%d ranks, want %d", b.ranks.len(), tt.ranks)
			}
			// Every line of the file is found with its own rank.
			for line := range bytes.Lines(data) {
				tok, rank, _ := bytes.Cut(bytes.TrimSpace(line), []byte{' '})
				raw, _ := base64.StdEncoding.DecodeString(string(tok))
				want, _ := strconv.Atoi(string(rank))
				if got, ok := b.ranks.rank(string(raw)); !ok || got != uint32(want) {
					t.Fatalf("rank(%q) = %d, %v; the file says %d", raw, got, ok, want)
				}
				if _, ok := b.ranks.rank(string(raw) + "\x00\xff"); ok {
					t.Fatalf("%q followed by bytes no token ends with was found", raw)
				}
			}
		})
	}
}

func TestCountInvalidUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, same string
	}{
		{"lone byte", "a\xffb", "a\uFFFDb"},
		{"truncated sequence is one replacement", "a\xe8\x96b", "a\uFFFDb"},
		{"two invalid bytes are two", "\xff\xfe", "\uFFFD\uFFFD"},
		{"surrogate is three", "a\xed\xa0\x80b", "a\uFFFD\uFFFD\uFFFDb"},
		{"truncated before valid", "\xe8\x96é", "\uFFFDé"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := validUTF8(tt.in); got != tt.same {
				t.Errorf("validUTF8(%q) = %q, want %q", tt.in, got, tt.same)
			}
			for _, enc := range Encodings() {
				got, _ := counter.Count(enc, tt.in)
				want, _ := counter.Count(enc, tt.same)
				if got != want {
					t.Errorf("%s: Count(%q) = %d, Count(%q) = %d", enc, tt.in, got, tt.same, want)
				}
			}
		})
	}
}

func TestCountUnknownEncoding(t *testing.T) {
	t.Parallel()
	if _, err := counter.Count("r50k_base", "x"); err == nil || !strings.Contains(err.Error(), "o200k_base") {
		t.Fatalf("Count with an unknown encoding: err = %v, want one naming the valid encodings", err)
	}
	// The empty encoding is the default, as in ParseEncoding.
	a, _ := counter.Count("", "hello world")
	b, _ := counter.Count(O200kBase, "hello world")
	if a != b {
		t.Errorf("Count(\"\") = %d, Count(o200k_base) = %d", a, b)
	}
}

// TestCounterConcurrent starts many goroutines on a fresh zero Counter at
// once, so that they race to load both encodings and then count; -race
// checks the sharing.
func TestCounterConcurrent(t *testing.T) {
	t.Parallel()
	text := sampleText(4 << 10)
	want := map[Encoding]int{}
	for _, enc := range Encodings() {
		n, err := counter.Count(enc, text)
		if err != nil {
			t.Fatal(err)
		}
		want[enc] = n
	}
	var c Counter
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 16 {
		enc := Encodings()[i%2]
		wg.Go(func() {
			<-start
			for range 5 {
				got, err := c.Count(enc, text)
				if err != nil || got != want[enc] {
					t.Errorf("%s: Count = %d, %v; want %d", enc, got, err, want[enc])
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
}
