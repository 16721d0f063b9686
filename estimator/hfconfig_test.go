package estimator

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readConfig(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hf", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// editConfig returns a testdata config with some keys replaced (a nil
// value deletes the key).
func editConfig(t *testing.T, name string, edits map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readConfig(t, name), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range edits {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseHFConfigFamilies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want Architecture
	}{
		{"gemma-2b", Architecture{DModel: 2048, Layers: 18, Heads: 8, KVHeads: 1, HeadDim: 256, DFF: 16384, MLP: MLPGated, Vocab: 256000, TiedEmbeddings: true}},
		{"qwen3-8b", Architecture{DModel: 4096, Layers: 36, Heads: 32, KVHeads: 8, HeadDim: 128, DFF: 12288, MLP: MLPGated, Vocab: 151936}},
		{"gpt2", Architecture{DModel: 768, Layers: 12, Heads: 12, KVHeads: 12, HeadDim: 64, DFF: 3072, MLP: MLPPlain, Vocab: 50257, TiedEmbeddings: true}},
		{"mixtral-8x7b", Architecture{DModel: 4096, Layers: 32, Heads: 32, KVHeads: 8, HeadDim: 128, MLP: MLPGated, Vocab: 32000,
			MoE: &MoE{Experts: 8, TopK: 2, DFFExpert: 14336}}},
		{"qwen1.5-moe-a2.7b", Architecture{DModel: 2048, Layers: 24, Heads: 16, KVHeads: 16, HeadDim: 128, MLP: MLPGated, Vocab: 151936,
			MoE: &MoE{Experts: 60, TopK: 4, DFFExpert: 1408, Shared: 1, DFFShared: 5632}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, err := ParseHFConfig(readConfig(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseHFConfig = %+v (moe %+v)\nwant %+v (moe %+v)", got, got.MoE, tt.want, tt.want.MoE)
			}
		})
	}
}

func TestParseHFConfigDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string
		edits map[string]any
		check func(Architecture) bool
	}{
		{"mistral kv heads default to 8", "mistral-7b-v0.3", map[string]any{"num_key_value_heads": nil, "num_attention_heads": 16},
			func(a Architecture) bool { return a.KVHeads == 8 }},
		{"null kv heads mean multi-head", "mistral-7b-v0.3", map[string]any{"num_key_value_heads": json.RawMessage("null")},
			func(a Architecture) bool { return a.KVHeads == 32 }},
		{"llama kv heads default to heads", "llama-3.1-8b", map[string]any{"num_key_value_heads": nil},
			func(a Architecture) bool { return a.KVHeads == 32 }},
		{"llama unties by default", "llama-3.2-1b", map[string]any{"tie_word_embeddings": nil},
			func(a Architecture) bool { return !a.TiedEmbeddings }},
		{"gemma2 ties by default", "gemma-2-9b", map[string]any{"tie_word_embeddings": nil},
			func(a Architecture) bool { return a.TiedEmbeddings }},
		{"gemma2 head_dim defaults to 256", "gemma-2-27b", map[string]any{"head_dim": nil},
			func(a Architecture) bool { return a.HeadDim == 256 }},
		{"llama head_dim defaults to d/H", "llama-3.2-3b", map[string]any{"head_dim": nil},
			func(a Architecture) bool { return a.HeadDim == 128 }},
		{"gpt2 explicit n_inner", "gpt2", map[string]any{"n_inner": 1000},
			func(a Architecture) bool { return a.DFF == 1000 }},
		{"gpt2 null n_inner", "gpt2", map[string]any{"n_inner": json.RawMessage("null")},
			func(a Architecture) bool { return a.DFF == 3072 }},
		{"gpt2 untied on request", "gpt2", map[string]any{"tie_word_embeddings": false},
			func(a Architecture) bool { return !a.TiedEmbeddings }},
		{"integral float accepted", "llama-3.1-8b", map[string]any{"hidden_size": json.RawMessage("4.096e3")},
			func(a Architecture) bool { return a.DModel == 4096 }},
		{"qwen2_moe mlp_only_layers become dense layers", "qwen1.5-moe-a2.7b", map[string]any{"mlp_only_layers": []int{0, 5, 5}},
			func(a Architecture) bool { return a.MoE.DenseLayers == 2 && a.DFF == 5632 }},
		{"qwen2_moe sparse step 2", "qwen1.5-moe-a2.7b", map[string]any{"decoder_sparse_step": 2, "mlp_only_layers": []int{0, 1}},
			// layers 1,3,…,23 are sparse (12) except layer 1: 11 sparse, 13 dense
			func(a Architecture) bool { return a.MoE.DenseLayers == 13 }},
		{"qwen2_moe without experts is dense", "qwen1.5-moe-a2.7b", map[string]any{"num_experts": 0},
			func(a Architecture) bool { return a.MoE == nil && a.DFF == 5632 }},
		{"qwen2_moe without shared expert", "qwen1.5-moe-a2.7b", map[string]any{"shared_expert_intermediate_size": 0},
			func(a Architecture) bool { return a.MoE.Shared == 0 && a.MoE.DFFShared == 0 }},
		{"qwen3_moe every layer dense", "qwen3-30b-a3b", map[string]any{"decoder_sparse_step": 100},
			func(a Architecture) bool { return a.MoE == nil && a.DFF == 6144 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := ParseHFConfig(editConfig(t, tt.file, tt.edits))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(a) {
				t.Errorf("ParseHFConfig = %+v (moe %+v)", a, a.MoE)
			}
		})
	}
}

func TestParseHFConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		want string // the whole error message, or a part of it ending in "…"
	}{
		{"missing field", editConfig(t, "llama-3.1-8b", map[string]any{"num_attention_heads": nil}),
			`config.json: field "num_attention_heads" is missing (model_type "llama")`},
		{"wrong type", editConfig(t, "mistral-7b-v0.3", map[string]any{"hidden_size": "4096"}),
			`config.json: field "hidden_size" must be an integer, got string (model_type "mistral")`},
		{"wrong boolean", editConfig(t, "gemma-2-9b", map[string]any{"tie_word_embeddings": "yes"}),
			`config.json: field "tie_word_embeddings" must be a boolean, got string (model_type "gemma2")`},
		{"fractional size", editConfig(t, "gpt2", map[string]any{"n_embd": 767.5}),
			`config.json: field "n_embd" must be an integer, got 767.5 (model_type "gpt2")`},
		{"huge size", editConfig(t, "llama-3.1-8b", map[string]any{"vocab_size": json.RawMessage("1e30")}),
			`config.json: field "vocab_size" is out of range: 1e30 (model_type "llama")`},
		{"every problem at once", editConfig(t, "mixtral-8x7b", map[string]any{"num_local_experts": nil, "num_experts_per_tok": true, "hidden_size": nil}),
			`config.json: field "hidden_size" is missing; field "num_local_experts" is missing; field "num_experts_per_tok" must be an integer, got boolean (model_type "mixtral")`},
		{"unsupported model_type", editConfig(t, "llama-3.1-8b", map[string]any{"model_type": "bert"}),
			`config.json: field "model_type" has unsupported value "bert"; supported: gemma, gemma2, gpt2, llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe`},
		{"missing model_type", editConfig(t, "llama-3.1-8b", map[string]any{"model_type": nil}),
			`config.json: field "model_type" is missing; supported: gemma, gemma2, gpt2, llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe`},
		{"model_type not a string", editConfig(t, "llama-3.1-8b", map[string]any{"model_type": 7}),
			`config.json: field "model_type" must be a string, got number`},
		{"qwen3_moe needs head_dim", editConfig(t, "qwen3-30b-a3b", map[string]any{"head_dim": nil}),
			`config.json: field "head_dim" is missing (model_type "qwen3_moe")`},
		{"qwen3_moe dense layers need intermediate_size", editConfig(t, "qwen3-30b-a3b", map[string]any{"mlp_only_layers": []int{3}, "intermediate_size": nil}),
			`config.json: field "intermediate_size" is missing (model_type "qwen3_moe")`},
		{"layer index out of range", editConfig(t, "qwen3-30b-a3b", map[string]any{"mlp_only_layers": []int{48}}),
			`config.json: field "mlp_only_layers" lists layer 48, outside 0..47 (model_type "qwen3_moe")`},
		{"layer list of strings", editConfig(t, "qwen3-30b-a3b", map[string]any{"mlp_only_layers": []string{"1"}}),
			`config.json: field "mlp_only_layers" item 0 must be an integer, got string (model_type "qwen3_moe")`},
		{"zero sparse step", editConfig(t, "qwen1.5-moe-a2.7b", map[string]any{"decoder_sparse_step": 0}),
			`config.json: field "decoder_sparse_step" must be positive, got 0 (model_type "qwen2_moe")`},
		{"inconsistent heads", editConfig(t, "llama-3.1-8b", map[string]any{"num_key_value_heads": 5}),
			`config.json: field "num_key_value_heads" is not usable: n_heads (32) must be a multiple of n_kv_heads (5) (model_type "llama")`},
		{"gpt2 heads do not divide width", editConfig(t, "gpt2", map[string]any{"n_head": 7}),
			`config.json: field "n_head" is not usable: must be given: …`},
		{"negative size", editConfig(t, "gemma-2b", map[string]any{"num_hidden_layers": -3}),
			`config.json: field "num_hidden_layers" is not usable: must be positive (model_type "gemma")`},
		{"top_k above experts", editConfig(t, "mixtral-8x22b", map[string]any{"num_experts_per_tok": 9}),
			`config.json: field "num_experts_per_tok" is not usable: (9) must not exceed moe.n_experts (8) (model_type "mixtral")`},
		{"array", []byte(`[1, 2]`), `config.json: not a JSON object: …`},
		{"null", []byte(`null`), `config.json: not a JSON object: top-level value is not an object`},
		{"not JSON", []byte(`{"model_type": "llama",`), `config.json: not a JSON object: …`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseHFConfig(tt.data)
			if err == nil {
				t.Fatal("ParseHFConfig succeeded")
			}
			got := err.Error()
			if prefix, ok := strings.CutSuffix(tt.want, "…"); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("error %q\ndoes not start with %q", got, prefix)
				}
			} else if got != tt.want {
				t.Errorf("error %q\nwant      %q", got, tt.want)
			}
		})
	}
}

func TestConfigErrorType(t *testing.T) {
	t.Parallel()
	_, err := ParseHFConfig(editConfig(t, "llama-3.1-8b", map[string]any{"vocab_size": nil}))
	var ce ConfigError
	if !errors.As(err, &ce) || ce.ModelType != "llama" || len(ce.Problems) != 1 || ce.Problems[0].Field != "vocab_size" {
		t.Errorf("error %#v, want a ConfigError about vocab_size", err)
	}
}
