package estimator

import (
	"math/big"
	"strconv"
)

// MarshalJSON writes the breakdown in the convention's component order
// (q_proj, kv_proj, attn_scores, attn_values, out_proj, mlp, router,
// lm_head) rather than encoding/json's alphabetical map order, with each
// value an exact JSON integer. It is also several times faster than the
// generic map encoding, which matters on the estimate API's hot path.
func (b Breakdown) MarshalJSON() ([]byte, error) {
	return b.AppendJSON(make([]byte, 0, 256)), nil
}

// AppendJSON appends what MarshalJSON writes to buf.
func (b Breakdown) AppendJSON(buf []byte) []byte {
	if b == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '{')
	for i, c := range componentOrder() {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = append(buf, c...)
		buf = append(buf, '"', ':')
		buf = AppendInt(buf, b[c])
	}
	return append(buf, '}')
}

// AppendInt appends n in decimal, 0 for nil. Most single-request figures
// fit in 64 bits, and strconv is much faster than big.Int's conversion.
func AppendInt(buf []byte, n *big.Int) []byte {
	switch {
	case n == nil:
		return append(buf, '0')
	case n.IsInt64():
		return strconv.AppendInt(buf, n.Int64(), 10)
	}
	return n.Append(buf, 10)
}
