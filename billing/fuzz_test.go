package billing

import (
	"encoding/json"
	"testing"
)

// FuzzDecodePlan: the decoder never panics, a plan it accepts validates,
// and what MarshalJSON writes of it decodes to a plan that is written the
// same way. The seed corpus runs with go test.
func FuzzDecodePlan(f *testing.F) {
	for _, seed := range []string{
		`{"name": "list-price", "kind": "request", "effective_from": "2026-01-01", "prices": {"default": {"per_request": "0", "input_per_mtok": "3", "cached_input_per_mtok": "0.3", "output_per_mtok": "15"}, "gpt-4o": {"input_per_mtok": "2.5", "output_per_mtok": "10"}}}`,
		`{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "prefill_per_tflop": "0.00002", "decode_per_tflop": "0.00002"}`,
		`{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.00002"}`,
		`{"name": "t", "kind": "flops", "versions": [{"effective_from": "2026-01-01", "per_tflop": "1"}, {"effective_from": "2026-02-01", "prefill_per_tflop": "1", "decode_per_tflop": "2"}]}`,
		`{"name": "t", "kind": "request", "effective_from": "2026-01-01", "prices": {"m": {"input_per_mtok": "1e5", "output_per_mtok": -1}}}`,
		`{"name": "t", "kind": "request", "effective_from": "2026-01-01", "prices": {"m\u0000": {"input_per_mtok": "1", "output_per_mtok": "1"}}}`,
		`{"name": "t", "kind": "request", "effective_from": "2026-01-01", "prices": {"\xff": {"input_per_mtok": "1", "output_per_mtok": "1"}}}`,
		`{"name": "t", "kind": "flops", "versions": null}`,
		`{"name": "t", "kind": "flops", "versions": [{}, [], "x", null]}`,
		`{"name": "t", "kind": "flops", "effective_from": "0001-01-01", "per_tflop": "99999999999999999999999999999999999999999999999999999999999999"}`,
		`{"kind": "request", "prices": {"default": {}}, "prices": []}`,
		`{"name": "x",}`,
		`[]`,
		`null`,
		`"x"`,
		``,
		`{"a":{"b":{"c":[[[[[[[[[[]]]]]]]]]]}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePlan(data)
		if err != nil {
			if _, ok := err.(ValidationError); !ok {
				t.Fatalf("error %T %v is not a ValidationError", err, err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded plan does not validate: %v\ninput: %q", err, data)
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		q, err := DecodePlan(out)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		again, err := json.Marshal(q)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if string(again) != string(out) {
			t.Fatalf("round trip differs:\n%s\n%s", out, again)
		}
		for _, v := range p.Versions {
			body, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("marshal version: %v", err)
			}
			if _, err := DecodeVersion(p.Kind, body); err != nil {
				t.Fatalf("re-decoding version %s: %v", body, err)
			}
		}
	})
}
