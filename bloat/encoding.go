package bloat

import (
	"fmt"
	"strings"
)

// Encoding names a tiktoken BPE encoding, spelled as tiktoken spells it.
type Encoding string

const (
	// O200kBase is the encoding of GPT-4o, GPT-4.1, GPT-5 and the o-series;
	// it is the default because it is what current OpenAI models bill by.
	O200kBase Encoding = "o200k_base"
	// Cl100kBase is the encoding of GPT-4 and GPT-3.5-turbo.
	Cl100kBase Encoding = "cl100k_base"
)

// Encodings returns every encoding the package supports, default first, in
// a fresh slice the caller may keep or change.
func Encodings() []Encoding {
	return []Encoding{O200kBase, Cl100kBase}
}

// ParseEncoding turns user input (an API field, a flag) into an Encoding.
// An empty string selects O200kBase, so that callers can pass an optional
// field through unchanged. Anything else must match a name exactly; the
// error names the valid ones so that an API can show it as it is.
func ParseEncoding(s string) (Encoding, error) {
	if s == "" {
		return O200kBase, nil
	}
	all := Encodings()
	for _, e := range all {
		if s == string(e) {
			return e, nil
		}
	}
	names := make([]string, len(all))
	for i, e := range all {
		names[i] = string(e)
	}
	return "", fmt.Errorf("bloat: unknown encoding %q (valid: %s)", s, strings.Join(names, ", "))
}
