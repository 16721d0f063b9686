package estimator

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParseHFConfig: ParseHFConfig never panics, and what it accepts is a
// valid, normalized architecture.
func FuzzParseHFConfig(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "hf", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed configs: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model_type": "qwen2_moe", "hidden_size": 8, "num_hidden_layers": 4, "num_attention_heads": 2,
		"vocab_size": 5, "num_experts": 4, "num_experts_per_tok": 1, "moe_intermediate_size": 2,
		"shared_expert_intermediate_size": 3, "decoder_sparse_step": 3, "mlp_only_layers": [2, 2, -1], "intermediate_size": 6}`))
	f.Add([]byte(`{"model_type": "gpt2", "n_embd": 1e300, "n_layer": null, "n_head": "x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseHFConfig(data)
		if err != nil {
			return
		}
		if verr := a.Validate(); verr != nil {
			t.Fatalf("ParseHFConfig accepted %q as %+v, which does not validate: %v", data, a, verr)
		}
		if !reflect.DeepEqual(a, a.Normalized()) {
			t.Fatalf("ParseHFConfig returned a non-normalized %+v", a)
		}
	})
}

// FuzzCompute: on small inputs Compute never panics, rejects exactly the
// inputs that do not validate, and its figures agree with the reference.
func FuzzCompute(f *testing.F) {
	f.Add(uint8(8), uint8(2), uint8(2), uint8(0), uint8(0), uint8(16), uint8(10), true,
		uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint16(3), uint16(0), uint16(2), uint8(1))
	f.Add(uint8(4), uint8(2), uint8(2), uint8(1), uint8(2), uint8(6), uint8(11), true,
		uint8(4), uint8(2), uint8(3), uint8(1), uint8(5), uint8(1), uint16(700), uint16(650), uint16(999), uint8(7))
	f.Add(uint8(6), uint8(3), uint8(4), uint8(2), uint8(5), uint8(12), uint8(7), false,
		uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint16(5), uint16(9), uint16(3), uint8(2))
	f.Fuzz(func(t *testing.T, d, layers, heads, kv, hd, ff, vocab uint8, gated bool,
		experts, topK, dffExpert, shared, dffShared, dense uint8, in, cached, out uint16, n uint8) {
		a := Architecture{
			DModel: int64(d), Layers: int64(layers), Heads: int64(heads), KVHeads: int64(kv), HeadDim: int64(hd),
			DFF: int64(ff), MLP: MLPPlain, Vocab: int64(vocab),
		}
		if gated {
			a.MLP = MLPGated
		}
		if experts > 0 {
			a.MoE = &MoE{Experts: int64(experts), TopK: int64(topK), DFFExpert: int64(dffExpert),
				Shared: int64(shared), DFFShared: int64(dffShared), DenseLayers: int64(dense)}
		}
		r := Request{InputTokens: int64(in), CachedInputTokens: int64(cached), OutputTokens: int64(out), Requests: int64(n)}

		e, err := Compute(a, r)
		valid := a.Validate() == nil && r.Validate() == nil
		if err != nil {
			var ve ValidationError
			if valid || !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("Compute(%+v, %+v) = %v", a, r, err)
			}
			return
		}
		if !valid {
			t.Fatalf("Compute accepted invalid input %+v, %+v", a, r)
		}
		checkAgainstReference(t, a, r, e)
	})
}
