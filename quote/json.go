package quote

import (
	"encoding/json"
	"math/big"
	"strconv"

	"github.com/flopledger/flopledger/estimator"
)

// The estimate API answers tens of thousands of requests a second, and
// encoding/json's reflection (plus the compaction it runs on every nested
// MarshalJSON) was a third of each request's time. Result therefore writes
// itself: the same bytes encoding/json would write for the struct, which
// TestResultJSONMatchesEncodingJSON checks field by field.

// MarshalJSON writes r as encoding/json would, faster.
func (r Result) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(make([]byte, 0, 1024)), nil
}

// AppendJSON appends r's JSON to buf.
func (r Result) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"model":`...)
	buf = appendString(buf, r.Model)
	buf = append(buf, `,"model_source":`...)
	buf = appendString(buf, r.ModelSource)
	if r.ModelVersion != 0 {
		buf = append(buf, `,"model_version":`...)
		buf = strconv.AppendInt(buf, int64(r.ModelVersion), 10)
	}
	buf = append(buf, `,"input_tokens":`...)
	buf = strconv.AppendInt(buf, r.InputTokens, 10)
	buf = append(buf, `,"cached_input_tokens":`...)
	buf = strconv.AppendInt(buf, r.CachedInputTokens, 10)
	buf = append(buf, `,"output_tokens":`...)
	buf = strconv.AppendInt(buf, r.OutputTokens, 10)
	buf = append(buf, `,"requests":`...)
	buf = strconv.AppendInt(buf, r.Requests, 10)
	buf = append(buf, `,"prefill_flops":`...)
	buf = appendBig(buf, r.PrefillFLOPs)
	buf = append(buf, `,"decode_flops":`...)
	buf = appendBig(buf, r.DecodeFLOPs)
	buf = append(buf, `,"total_flops":`...)
	buf = appendBig(buf, r.TotalFLOPs)
	buf = append(buf, `,"breakdown":{"prefill":`...)
	buf = r.Breakdown.Prefill.AppendJSON(buf)
	buf = append(buf, `,"decode":`...)
	buf = r.Breakdown.Decode.AppendJSON(buf)
	buf = append(buf, `},"human":{"prefill":`...)
	buf = appendString(buf, r.Human.Prefill)
	buf = append(buf, `,"decode":`...)
	buf = appendString(buf, r.Human.Decode)
	buf = append(buf, `,"total":`...)
	buf = appendString(buf, r.Human.Total)
	buf = append(buf, '}')
	if r.Bloat != nil {
		buf = append(buf, `,"bloat":`...)
		buf = r.Bloat.appendJSON(buf)
	}
	if len(r.Costs) > 0 {
		buf = append(buf, `,"costs":[`...)
		for i, c := range r.Costs {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = c.appendJSON(buf)
		}
		buf = append(buf, ']')
	}
	return append(buf, '}')
}

func (b *Bloat) appendJSON(buf []byte) []byte {
	buf = append(buf, `{"tokenizer":`...)
	buf = appendString(buf, b.Tokenizer)
	buf = append(buf, `,"tokens":`...)
	buf = strconv.AppendInt(buf, b.Tokens, 10)
	buf = append(buf, `,"normalized_tokens":`...)
	buf = strconv.AppendInt(buf, b.NormalizedTokens, 10)
	buf = append(buf, `,"bloat_tokens":`...)
	buf = strconv.AppendInt(buf, b.BloatTokens, 10)
	buf = append(buf, `,"bloat_ratio":`...)
	buf = appendString(buf, b.BloatRatio)
	buf = append(buf, `,"prefill_flops":`...)
	buf = appendBig(buf, b.PrefillFLOPs)
	buf = append(buf, `,"total_flops":`...)
	buf = appendBig(buf, b.TotalFLOPs)
	buf = append(buf, `,"redundant_spans":`...)
	if b.RedundantSpans == nil {
		buf = append(buf, "null"...)
	} else {
		buf = append(buf, '[')
		for i, s := range b.RedundantSpans {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, `{"start":`...)
			buf = strconv.AppendInt(buf, int64(s.Start), 10)
			buf = append(buf, `,"end":`...)
			buf = strconv.AppendInt(buf, int64(s.End), 10)
			buf = append(buf, '}')
		}
		buf = append(buf, ']')
	}
	return append(buf, '}')
}

func (c Cost) appendJSON(buf []byte) []byte {
	buf = append(buf, `{"plan":`...)
	buf = appendString(buf, c.Plan)
	buf = append(buf, `,"kind":`...)
	buf = appendString(buf, string(c.Kind))
	if c.EffectiveFrom != nil {
		buf = append(buf, `,"effective_from":`...)
		buf = appendString(buf, c.EffectiveFrom.String())
	}
	if c.Cost != nil {
		buf = append(buf, `,"cost":"`...)
		buf = append(buf, c.Cost.String()...)
		buf = append(buf, '"')
	}
	if c.Error != "" {
		buf = append(buf, `,"error":`...)
		buf = appendString(buf, c.Error)
	}
	return append(buf, '}')
}

// appendBig writes an exact integer, or null for a nil one.
func appendBig(buf []byte, n *big.Int) []byte {
	if n == nil {
		return append(buf, "null"...)
	}
	return estimator.AppendInt(buf, n)
}

// appendString writes s as a JSON string. Plain ASCII (the usual model and
// plan names) is copied as is; anything that needs escaping goes through
// encoding/json, so that the escapes (HTML-safe \u003c and friends, invalid
// UTF-8) are exactly encoding/json's.
func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			quoted, _ := json.Marshal(s) // a string always marshals
			return append(buf, quoted...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
