package store

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestSum128MatchesBigInt: the 128-bit sums of the rollups agree with
// math/big, also past int64 and with negative terms.
func TestSum128MatchesBigInt(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		var s sum128
		want := new(big.Int)
		for range 1 + rng.IntN(5000) {
			v := rng.Int64()
			switch rng.IntN(4) {
			case 0:
				v = math.MaxInt64
			case 1:
				v = -v
			}
			s.add(v)
			want.Add(want, big.NewInt(v))
		}
		if s.String() != want.String() {
			t.Fatalf("trial %d: sum128 = %s, big = %s", trial, s.String(), want)
		}
	}
}

// TestTagsJSONIsEncodingJSON: the tags' JSON is the rollups' key, so the
// one-tag fast path must spell every tag exactly as encoding/json does.
func TestTagsJSONIsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, tags := range []map[string]string{
		nil, {}, {"team": "care"}, {"a": `q"uote`}, {"b": `back\slash`}, {"c": "<html>&"}, {"d": "tab\there"},
		{"e": "café"}, {"f": "\x7f"}, {"g": "\u2028"}, {"h": "\xff"}, {"two": "1", "keys": "2"}, {"": ""},
	} {
		got, err := tagsJSON(tags)
		if err != nil {
			t.Fatal(err)
		}
		want := "{}"
		if len(tags) > 0 {
			b, _ := json.Marshal(tags)
			want = string(b)
		}
		if got != want {
			t.Errorf("tagsJSON(%q) = %s, encoding/json writes %s", tags, got, want)
		}
	}
}
