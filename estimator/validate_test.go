package estimator

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func fields(ve ValidationError) map[string]bool {
	m := make(map[string]bool, len(ve.Problems))
	for _, p := range ve.Problems {
		m[p.Field] = true
	}
	return m
}

func sortedFields(err error) []string {
	var ve ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	for f := range fields(ve) {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func TestArchitectureValidate(t *testing.T) {
	t.Parallel()
	llama := mustLookup(t, "llama-3.1-8b").Architecture
	tests := []struct {
		name   string
		arch   Architecture
		fields []string // every field at fault, sorted; nil = valid
	}{
		{name: "catalogued dense", arch: llama},
		{name: "catalogued MoE", arch: mustLookup(t, "qwen1.5-moe-a2.7b").Architecture},
		{name: "defaults filled later", arch: Architecture{DModel: 8, Layers: 1, Heads: 2, DFF: 4, MLP: MLPPlain, Vocab: 3}},
		{
			name:   "empty",
			arch:   Architecture{},
			fields: []string{"d_ff", "d_model", "mlp", "n_heads", "n_layers", "vocab"},
		},
		{
			name:   "all negative, unknown mlp",
			arch:   Architecture{DModel: -1, Layers: -1, Heads: -1, KVHeads: -1, HeadDim: -1, DFF: -1, MLP: "swish", Vocab: -1},
			fields: []string{"d_ff", "d_model", "head_dim", "mlp", "n_heads", "n_kv_heads", "n_layers", "vocab"},
		},
		{
			name:   "heads not a multiple of kv heads",
			arch:   Architecture{DModel: 64, Layers: 1, Heads: 32, KVHeads: 5, DFF: 4, MLP: MLPGated, Vocab: 3},
			fields: []string{"n_kv_heads"},
		},
		{
			name:   "more kv heads than heads",
			arch:   Architecture{DModel: 64, Layers: 1, Heads: 4, KVHeads: 8, DFF: 4, MLP: MLPGated, Vocab: 3},
			fields: []string{"n_kv_heads"},
		},
		{
			name:   "head_dim cannot default",
			arch:   Architecture{DModel: 10, Layers: 1, Heads: 3, DFF: 4, MLP: MLPGated, Vocab: 3},
			fields: []string{"head_dim"},
		},
		{
			name:   "absurd sizes",
			arch:   Architecture{DModel: 1e8, Layers: 1e8, Heads: 1e8, HeadDim: 1e8, DFF: 1e8, MLP: MLPGated, Vocab: 1e8},
			fields: []string{"d_ff", "d_model", "head_dim", "n_heads", "n_layers", "vocab"},
		},
		{
			name:   "too many parameters overall",
			arch:   Architecture{DModel: 1e7, Layers: 1e7, Heads: 1, DFF: 1e7, MLP: MLPGated, Vocab: 1},
			fields: []string{""},
		},
		{
			name: "MoE: every problem",
			arch: Architecture{DModel: 8, Layers: 2, Heads: 2, DFF: 16, MLP: MLPGated, Vocab: 3,
				MoE: &MoE{Experts: 4, TopK: 5, DFFExpert: 0, Shared: 1, DFFShared: 0, DenseLayers: 3}},
			fields: []string{"moe.d_ff_expert", "moe.d_ff_shared", "moe.n_dense_layers", "moe.top_k"},
		},
		{
			name: "MoE: d_ff without dense layers, width without shared expert",
			arch: Architecture{DModel: 8, Layers: 2, Heads: 2, DFF: 16, MLP: MLPGated, Vocab: 3,
				MoE: &MoE{Experts: 4, TopK: 2, DFFExpert: 8, DFFShared: 8}},
			fields: []string{"d_ff", "moe.d_ff_shared"},
		},
		{
			name: "MoE: dense layers without d_ff, negative counts",
			arch: Architecture{DModel: 8, Layers: 2, Heads: 2, MLP: MLPGated, Vocab: 3,
				MoE: &MoE{Experts: -1, TopK: -1, DFFExpert: 8, Shared: -1, DenseLayers: 1}},
			fields: []string{"d_ff", "moe.n_experts", "moe.n_shared", "moe.top_k"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.arch.Validate()
			if got := sortedFields(err); !reflect.DeepEqual(got, tt.fields) {
				t.Errorf("Validate() = %v\nfields %q, want %q", err, got, tt.fields)
			}
		})
	}
}

func TestValidationMessages(t *testing.T) {
	t.Parallel()
	err := Architecture{DModel: 10, Layers: 1, Heads: 3, KVHeads: 2, DFF: 4, MLP: "relu", Vocab: 3}.Validate()
	msg := err.Error()
	for _, want := range []string{
		"n_kv_heads: n_heads (3) must be a multiple of n_kv_heads (2)",
		"head_dim: must be given: it cannot default to d_model/n_heads because d_model (10) is not a multiple of n_heads (3)",
		`mlp: unknown kind "relu": must be "gated" or "plain"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestRequestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		req    Request
		fields []string
	}{
		{name: "single request", req: Request{InputTokens: 1}},
		{name: "bucket", req: Request{InputTokens: 10, CachedInputTokens: 10, OutputTokens: 0, Requests: 10}},
		{name: "no prompt token", req: Request{}, fields: []string{"input_tokens"}},
		{
			name:   "negatives",
			req:    Request{InputTokens: -1, CachedInputTokens: -1, OutputTokens: -1, Requests: -1},
			fields: []string{"cached_input_tokens", "input_tokens", "output_tokens", "requests"},
		},
		{name: "cached above input", req: Request{InputTokens: 5, CachedInputTokens: 6}, fields: []string{"cached_input_tokens"}},
		{name: "fewer prompt tokens than requests", req: Request{InputTokens: 3, Requests: 4}, fields: []string{"input_tokens"}},
		{
			name:   "above the caps",
			req:    Request{InputTokens: MaxTokens + 1, CachedInputTokens: MaxTokens + 1, OutputTokens: MaxTokens + 1, Requests: MaxTokens + 1},
			fields: []string{"cached_input_tokens", "input_tokens", "output_tokens", "requests"},
		},
		{
			name:   "both relations broken",
			req:    Request{InputTokens: 3, CachedInputTokens: 4, Requests: 5},
			fields: []string{"cached_input_tokens", "input_tokens"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.req.Validate()
			if got := sortedFields(err); !reflect.DeepEqual(got, tt.fields) {
				t.Errorf("Validate() = %v\nfields %q, want %q", err, got, tt.fields)
			}
		})
	}
	err := Request{InputTokens: 3, Requests: 4}.Validate()
	if !strings.Contains(err.Error(), "every request has at least one prompt token") {
		t.Errorf("error %q does not say why", err)
	}
}

func TestNormalized(t *testing.T) {
	t.Parallel()
	a := Architecture{DModel: 12, Layers: 1, Heads: 4, DFF: 1, MLP: MLPGated, Vocab: 1, MoE: &MoE{Experts: 2, TopK: 1, DFFExpert: 1}}
	n := a.Normalized()
	if n.KVHeads != 4 || n.HeadDim != 3 {
		t.Errorf("Normalized() = %+v, want n_kv_heads 4 and head_dim 3", n)
	}
	n.MoE.Experts = 99
	if a.MoE.Experts != 2 {
		t.Error("Normalized() shares its MoE with the original")
	}
	if r := (Request{InputTokens: 1}).Normalized(); r.Requests != 1 {
		t.Errorf("Request.Normalized().Requests = %d, want 1", r.Requests)
	}
}
