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

// FuzzFastPathMatchesBig: whatever the sizes, the fast path (when its
// bounds allow it), the big path, Prepared.Compute, Totals and the big.Rat
// reference agree exactly, breakdowns included. Sizes are folded into their
// valid ranges so that most inputs are valid; the rest must be rejected.
func FuzzFastPathMatchesBig(f *testing.F) {
	// llama-3.1-8b, one request; qwen-like MoE bucket; llama-3.1-405b, 2M
	// tokens in a bucket of 10^6; a wide architecture on both sides of the
	// bound (attn bit length 46: fast up to a 79-bit context sum); units.
	f.Add(uint32(4096), uint32(32), uint32(32), uint32(8), uint32(128), uint32(14336), uint32(128256), true, uint8(0), uint32(0),
		uint64(1500), uint64(0), uint64(300), uint64(1))
	f.Add(uint32(2048), uint32(48), uint32(32), uint32(4), uint32(128), uint32(0), uint32(151936), true, uint8(128), uint32(768),
		uint64(123_457), uint64(50_000), uint64(9_999), uint64(97))
	f.Add(uint32(16384), uint32(126), uint32(128), uint32(8), uint32(128), uint32(53248), uint32(128256), true, uint8(0), uint32(0),
		uint64(2_000_000_000_000), uint64(500_000_000_000), uint64(300_000_001), uint64(1_000_000))
	f.Add(uint32(1), uint32(1<<22), uint32(1), uint32(1), uint32(1<<22), uint32(1), uint32(1), true, uint8(0), uint32(0),
		uint64(1<<39), uint64(0), uint64(0), uint64(1))
	f.Add(uint32(1), uint32(1<<22), uint32(1), uint32(1), uint32(1<<22), uint32(1), uint32(1), false, uint8(0), uint32(0),
		uint64(1<<39+1<<38), uint64(3), uint64(1<<40), uint64(1))
	f.Add(uint32(1), uint32(1), uint32(1), uint32(1), uint32(1), uint32(1), uint32(1), true, uint8(0), uint32(0),
		uint64(5), uint64(5), uint64(5), uint64(4))
	f.Fuzz(func(t *testing.T, d, layers, heads, kv, hd, ff, vocab uint32, gated bool, experts uint8, dffExpert uint32,
		in, cached, out, n uint64) {
		size := func(x uint32) int64 { return int64(x) % (MaxDimension + 1) }
		a := Architecture{DModel: size(d), Layers: size(layers), Heads: size(heads), KVHeads: size(kv), HeadDim: size(hd),
			DFF: size(ff), MLP: MLPPlain, Vocab: size(vocab)}
		if gated {
			a.MLP = MLPGated
		}
		if experts > 0 {
			a.MoE = &MoE{Experts: int64(experts), TopK: 1 + int64(experts)/4, DFFExpert: size(dffExpert)}
		}
		r := Request{InputTokens: int64(in % uint64(MaxTokens+1)), OutputTokens: int64(out % uint64(MaxTokens+1))}
		r.Requests = 1 + int64(n%uint64(max(r.InputTokens, 1)))
		r.CachedInputTokens = int64(cached % uint64(r.InputTokens+1))

		p, err := Prepare(a)
		if err != nil {
			if a.Validate() == nil {
				t.Fatalf("Prepare(%+v) = %v for a valid architecture", a, err)
			}
			return
		}
		if r.Validate() != nil {
			if _, err := p.Compute(r); err == nil {
				t.Fatalf("Prepared.Compute accepted invalid %+v", r)
			}
			return
		}
		agree(t, a, r, true)
	})
}
