// Package bloat measures how much of a prompt is redundant whitespace and
// what that whitespace costs in tokens.
//
// The normalisation is the one MISSION.md makes normative ("Prompt bloat"):
// trim the prompt, strip trailing spaces and tabs at each line end, collapse
// every run of blank or whitespace-only lines to one blank line. Whitespace
// means exactly the six ASCII bytes space, tab, LF, CR, FF and VT; Unicode
// spaces such as U+00A0 are content and stay. Leading indentation stays.
// Normalize applies it; Redundant gives the byte ranges it deletes, for
// highlighting.
//
// Tokens are counted with tiktoken's byte-pair encodings o200k_base (the
// default) and cl100k_base, token for token as tiktoken's encode_ordinary
// counts them. The vocabularies are OpenAI's own rank files, compiled into
// the binary by github.com/pkoukk/tiktoken-go-loader, so counting never
// touches the network or the file system. The piece splitter and the merge
// are in this package (pretokenize.go, merge.go) because the Go tokenizer
// libraries on offer miscounted whitespace-only lines or were quadratic in
// the length of a whitespace run; the tests check ids and counts against
// tiktoken's.
//
// The package keeps no prompt text: callers get counts and byte offsets,
// and may drop the prompt as soon as Analyze returns.
package bloat
