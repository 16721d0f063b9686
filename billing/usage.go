package billing

import (
	"github.com/shopspring/decimal"
)

// Usage is a quantity to price: one usage record, or a rollup of many
// (sums of the same fields). Token meanings are MISSION.md's: InputTokens
// counts every prompt token, cached or not; CachedInputTokens is the part of
// them served from a prefix cache (so CachedInputTokens ≤ InputTokens);
// OutputTokens counts generated tokens, reasoning included.
//
// Counts are int64: a month of a billion requests of two-million-token
// prompts is 2·10^15 tokens, far below the int64 limit. FLOPs are exact
// non-negative integers held in decimals, because they pass the int64 limit
// (decimal.NewFromBigInt(x, 0) converts an estimator result).
type Usage struct {
	Model             string
	Requests          int64
	InputTokens       int64
	CachedInputTokens int64
	OutputTokens      int64
	PrefillFLOPs      decimal.Decimal
	DecodeFLOPs       decimal.Decimal
}

// Validate reports every problem with u at once, with the usage record's
// JSON field names: negative counts, more cached than input tokens, FLOPs
// that are negative or not integers. Pricing refuses a Usage that fails it,
// because a negative quantity would turn a cost into a credit.
func (u Usage) Validate() error {
	var ps problems
	for _, c := range []struct {
		field string
		n     int64
	}{
		{"requests", u.Requests},
		{"input_tokens", u.InputTokens},
		{"cached_input_tokens", u.CachedInputTokens},
		{"output_tokens", u.OutputTokens},
	} {
		if c.n < 0 {
			ps.add(c.field, "must not be negative")
		}
	}
	if u.CachedInputTokens > u.InputTokens && u.CachedInputTokens >= 0 {
		ps.add("cached_input_tokens", "must not exceed input_tokens (input_tokens counts cached tokens too)")
	}
	for _, f := range []struct {
		field string
		d     decimal.Decimal
	}{
		{"prefill_flops", u.PrefillFLOPs},
		{"decode_flops", u.DecodeFLOPs},
	} {
		switch {
		case f.d.IsNegative():
			ps.add(f.field, "must not be negative")
		case !f.d.IsInteger():
			ps.add(f.field, "must be a whole number of FLOPs")
		}
	}
	return ps.err()
}
