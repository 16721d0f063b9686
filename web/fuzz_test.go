package web

import (
	"context"
	"errors"
	"testing"

	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/usage"
)

// noModels resolves nothing: the fuzz target exercises decoding and
// validation, not the store.
type noModels struct{}

func (noModels) Resolve(_ context.Context, name string) (catalog.Model, error) {
	return catalog.Model{}, &catalog.NotFoundError{Name: name}
}

// FuzzEstimateRequest feeds arbitrary bodies through the estimate
// endpoint's decoding, validation and estimation: nothing may panic, and
// every failure must map to a client error (4xx), never an internal one.
func FuzzEstimateRequest(f *testing.F) {
	for _, seed := range []string{
		`{"architecture": ` + tinyArch + `, "input_tokens": 3, "output_tokens": 2}`,
		`{"architecture": ` + tinyArch + `, "prompt": "a  \n\n\n b", "output_tokens": 2, "requests": 3}`,
		`{"architecture": {"d_model": 8, "n_layers": 1, "n_heads": 2, "d_ff": 0, "mlp": "plain", "vocab": 10, "moe": {"n_experts": 4, "top_k": 2, "d_ff_expert": 4, "n_shared": 1, "d_ff_shared": 8}}, "input_tokens": 9, "cached_input_tokens": 9, "output_tokens": 1}`,
		`{"hf_config": {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100}, "input_tokens": 5, "output_tokens": 5}`,
		`{"model": "gpt2", "input_tokens": 1e400, "output_tokens": -1}`,
		`{"architecture": {"d_model": 9223372036854775807, "n_layers": 9223372036854775807, "n_heads": 1, "d_ff": 1, "mlp": "gated", "vocab": 1}, "input_tokens": 9223372036854775807, "output_tokens": 9223372036854775807}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
		"{\"prompt\": \"\xff\xfe\", \"model\": \"x\", \"output_tokens\": 0}",
		`{"architecture": null, "hf_config": null, "input_tokens": null, "output_tokens": 1}`,
	} {
		f.Add([]byte(seed))
	}
	svc := quote.New(noModels{}, tokens)
	f.Fuzz(func(t *testing.T, body []byte) {
		var req quote.Request
		if err := decodeStrict(body, &req); err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status >= 500 {
				t.Fatalf("decode error is not a client error: %v", err)
			}
			return
		}
		if _, err := svc.Estimate(context.Background(), req); err != nil {
			if e := domainError(err); e == nil || e.Status >= 500 {
				t.Fatalf("estimate error is not a client error: %v", err)
			}
		}
	})
}

// FuzzUsageDecoders feeds arbitrary bodies to the three decoders of
// POST /v1/usage: none may panic; a body they accept yields items that are
// each a record or an error, and every failure is a client error.
func FuzzUsageDecoders(f *testing.F) {
	rec := `{"id": "a", "occurred_at": "2026-10-01T00:00:00Z", "workload": "w", "model": "gpt2", "input_tokens": 10, "output_tokens": 5, "tags": {"team": "x"}}`
	for _, seed := range []string{
		"[" + rec + "]", rec, rec + "\n\n" + rec + "\n{oops\n",
		`[{"specversion": "1.0", "id": "1", "source": "s", "type": "t", "data": ` + rec + `}]`,
		`[{"input_tokens": 1e999, "occurred_at": "not a time"}]`, `[[[[[[[[[[[[[[[[[[[[[[[[`, "\xff\xfe\x00", `{"tags": {"": ""}}`,
		`[{"id": "x", "latency_ms": NaN}]`, `[{"id": "x", "requests": -9223372036854775808}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, decode := range []func([]byte) ([]usage.Item, error){decodeArray, decodeNDJSON, decodeCloudEvents} {
			items, err := decode(body)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Status >= 500 {
					t.Fatalf("decoder error is not a client error: %v", err)
				}
				continue
			}
			for _, it := range items {
				if it.Err == nil {
					_ = it.Record.Normalized().Validate() // must not panic
				}
			}
		}
	})
}
