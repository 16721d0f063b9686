package estimator

import "math/big"

// MarshalJSON writes the breakdown in the convention's component order
// (q_proj, kv_proj, attn_scores, attn_values, out_proj, mlp, router,
// lm_head) rather than encoding/json's alphabetical map order, with each
// value an exact JSON integer. It is also several times faster than the
// generic map encoding, which matters on the estimate API's hot path.
func (b Breakdown) MarshalJSON() ([]byte, error) {
	if b == nil {
		return []byte("null"), nil
	}
	buf := make([]byte, 0, 256)
	buf = append(buf, '{')
	for i, c := range componentOrder() {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = append(buf, c...)
		buf = append(buf, '"', ':')
		v := b[c]
		if v == nil {
			v = new(big.Int)
		}
		buf = v.Append(buf, 10)
	}
	return append(buf, '}'), nil
}
