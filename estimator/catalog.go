package estimator

import "strings"

// Model is a published open-weight model with its architecture, taken from
// the model's own config.json (a copy of each is in testdata/hf).
type Model struct {
	Name   string `json:"name"`    // short lower-case name, e.g. "llama-3.1-8b"
	HFRepo string `json:"hf_repo"` // Hugging Face repository id
	// Aliases are other repository ids with the same architecture
	// (instruction-tuned variants, renamed repositories).
	Aliases      []string     `json:"aliases,omitempty"`
	Family       string       `json:"family"` // the config.json model_type
	Architecture Architecture `json:"architecture"`
	// PublishedParams is the total parameter count its publisher states
	// (model card, paper or safetensors index); PublishedActive the
	// per-token active count of a mixture of experts, 0 for a dense model.
	PublishedParams int64 `json:"published_params"`
	PublishedActive int64 `json:"published_active_params,omitempty"`
}

// Catalog returns the known models, built afresh on every call so that a
// caller may change its copy freely.
func Catalog() []Model {
	dense := func(d, layers, heads, kv, hd, ff, vocab int64, mlp MLPKind, tied bool) Architecture {
		return Architecture{DModel: d, Layers: layers, Heads: heads, KVHeads: kv, HeadDim: hd, DFF: ff, MLP: mlp, Vocab: vocab, TiedEmbeddings: tied}
	}
	moe := func(d, layers, heads, kv, hd, vocab int64, m MoE) Architecture {
		return Architecture{DModel: d, Layers: layers, Heads: heads, KVHeads: kv, HeadDim: hd, MLP: MLPGated, Vocab: vocab, MoE: &m}
	}
	return []Model{
		{
			Name: "gpt2", HFRepo: "openai-community/gpt2", Aliases: []string{"gpt2"}, Family: "gpt2",
			Architecture:    dense(768, 12, 12, 12, 64, 3072, 50257, MLPPlain, true),
			PublishedParams: 124_439_808, // with biases and position embeddings
		},
		{
			Name: "llama-3.1-8b", HFRepo: "meta-llama/Llama-3.1-8B", Family: "llama",
			Aliases:         []string{"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-8B-Instruct"},
			Architecture:    dense(4096, 32, 32, 8, 128, 14336, 128256, MLPGated, false),
			PublishedParams: 8_030_261_248,
		},
		{
			Name: "llama-3.1-70b", HFRepo: "meta-llama/Llama-3.1-70B", Family: "llama",
			Aliases:         []string{"meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3.1-70B", "meta-llama/Meta-Llama-3.1-70B-Instruct"},
			Architecture:    dense(8192, 80, 64, 8, 128, 28672, 128256, MLPGated, false),
			PublishedParams: 70_553_706_496,
		},
		{
			Name: "llama-3.1-405b", HFRepo: "meta-llama/Llama-3.1-405B", Family: "llama",
			Aliases:         []string{"meta-llama/Llama-3.1-405B-Instruct", "meta-llama/Meta-Llama-3.1-405B", "meta-llama/Meta-Llama-3.1-405B-Instruct"},
			Architecture:    dense(16384, 126, 128, 8, 128, 53248, 128256, MLPGated, false),
			PublishedParams: 405_000_000_000,
		},
		{
			Name: "llama-3.2-1b", HFRepo: "meta-llama/Llama-3.2-1B", Family: "llama",
			Aliases:         []string{"meta-llama/Llama-3.2-1B-Instruct"},
			Architecture:    dense(2048, 16, 32, 8, 64, 8192, 128256, MLPGated, true),
			PublishedParams: 1_235_814_400,
		},
		{
			Name: "llama-3.2-3b", HFRepo: "meta-llama/Llama-3.2-3B", Family: "llama",
			Aliases:         []string{"meta-llama/Llama-3.2-3B-Instruct"},
			Architecture:    dense(3072, 28, 24, 8, 128, 8192, 128256, MLPGated, true),
			PublishedParams: 3_212_749_824,
		},
		{
			Name: "mistral-7b-v0.3", HFRepo: "mistralai/Mistral-7B-v0.3", Family: "mistral",
			Aliases:         []string{"mistralai/Mistral-7B-Instruct-v0.3"},
			Architecture:    dense(4096, 32, 32, 8, 128, 14336, 32768, MLPGated, false),
			PublishedParams: 7_248_023_552,
		},
		{
			Name: "mixtral-8x7b", HFRepo: "mistralai/Mixtral-8x7B-v0.1", Family: "mixtral",
			Aliases:         []string{"mistralai/Mixtral-8x7B-Instruct-v0.1"},
			Architecture:    moe(4096, 32, 32, 8, 128, 32000, MoE{Experts: 8, TopK: 2, DFFExpert: 14336}),
			PublishedParams: 46_700_000_000, PublishedActive: 12_900_000_000,
		},
		{
			// Mixtral-8x22B-Instruct-v0.1 has a larger vocabulary (32768): not an alias.
			Name: "mixtral-8x22b", HFRepo: "mistralai/Mixtral-8x22B-v0.1", Family: "mixtral",
			Architecture:    moe(6144, 56, 48, 8, 128, 32000, MoE{Experts: 8, TopK: 2, DFFExpert: 16384}),
			PublishedParams: 141_000_000_000, PublishedActive: 39_000_000_000,
		},
		{
			Name: "qwen2.5-7b", HFRepo: "Qwen/Qwen2.5-7B", Family: "qwen2",
			Aliases:         []string{"Qwen/Qwen2.5-7B-Instruct"},
			Architecture:    dense(3584, 28, 28, 4, 128, 18944, 152064, MLPGated, false),
			PublishedParams: 7_610_000_000,
		},
		{
			Name: "qwen2.5-72b", HFRepo: "Qwen/Qwen2.5-72B", Family: "qwen2",
			Aliases:         []string{"Qwen/Qwen2.5-72B-Instruct"},
			Architecture:    dense(8192, 80, 64, 8, 128, 29568, 152064, MLPGated, false),
			PublishedParams: 72_700_000_000,
		},
		{
			Name: "qwen3-30b-a3b", HFRepo: "Qwen/Qwen3-30B-A3B", Family: "qwen3_moe",
			Aliases:         []string{"Qwen/Qwen3-30B-A3B-Base"},
			Architecture:    moe(2048, 48, 32, 4, 128, 151936, MoE{Experts: 128, TopK: 8, DFFExpert: 768}),
			PublishedParams: 30_500_000_000, PublishedActive: 3_300_000_000,
		},
		{
			Name: "qwen1.5-moe-a2.7b", HFRepo: "Qwen/Qwen1.5-MoE-A2.7B", Family: "qwen2_moe",
			Aliases:         []string{"Qwen/Qwen1.5-MoE-A2.7B-Chat"},
			Architecture:    moe(2048, 24, 16, 16, 128, 151936, MoE{Experts: 60, TopK: 4, DFFExpert: 1408, Shared: 1, DFFShared: 5632}),
			PublishedParams: 14_300_000_000, PublishedActive: 2_700_000_000,
		},
		{
			Name: "gemma-2-9b", HFRepo: "google/gemma-2-9b", Family: "gemma2",
			Aliases:         []string{"google/gemma-2-9b-it"},
			Architecture:    dense(3584, 42, 16, 8, 256, 14336, 256000, MLPGated, true),
			PublishedParams: 9_241_705_984,
		},
		{
			Name: "gemma-2-27b", HFRepo: "google/gemma-2-27b", Family: "gemma2",
			Aliases:         []string{"google/gemma-2-27b-it"},
			Architecture:    dense(4608, 46, 32, 16, 128, 36864, 256000, MLPGated, true),
			PublishedParams: 27_227_128_320,
		},
	}
}

// Lookup finds a catalogued model by its Name, its HFRepo or one of its
// Aliases, ignoring case ("Llama-3.1-8B", "meta-llama/Llama-3.1-8B-Instruct").
func Lookup(name string) (Model, bool) {
	name = strings.TrimSpace(name)
	for _, m := range Catalog() {
		if strings.EqualFold(name, m.Name) || strings.EqualFold(name, m.HFRepo) {
			return m, true
		}
		for _, alias := range m.Aliases {
			if strings.EqualFold(name, alias) {
				return m, true
			}
		}
	}
	return Model{}, false
}
