package estimator

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestCatalogMatchesHFConfig: every catalogued architecture is what
// ParseHFConfig reads from the model's own config.json, and it is valid.
func TestCatalogMatchesHFConfig(t *testing.T) {
	t.Parallel()
	for _, m := range Catalog() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			if err := m.Architecture.Validate(); err != nil {
				t.Fatalf("catalogued architecture is invalid: %v", err)
			}
			got, err := ParseHFConfig(readConfig(t, m.Name))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, m.Architecture) {
				t.Errorf("config.json gives %+v (moe %+v)\ncatalog has     %+v (moe %+v)", got, got.MoE, m.Architecture, m.Architecture.MoE)
			}
			if fam := m.Family; !strings.Contains(string(readConfig(t, m.Name)), `"model_type": "`+fam+`"`) {
				t.Errorf("family %q is not the config's model_type", fam)
			}
		})
	}
}

// TestParamsMatchPublished: Params is within 2% of each publisher's figure.
func TestParamsMatchPublished(t *testing.T) {
	t.Parallel()
	within := func(got, want int64) bool {
		return math.Abs(float64(got)-float64(want)) <= 0.02*float64(want)
	}
	for _, m := range Catalog() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			total, active := m.Architecture.Params()
			if !within(total, m.PublishedParams) {
				t.Errorf("Params total = %d, published %d", total, m.PublishedParams)
			}
			switch {
			case m.Architecture.MoE == nil && active != total:
				t.Errorf("dense model: active %d ≠ total %d", active, total)
			case m.Architecture.MoE != nil && !within(active, m.PublishedActive):
				t.Errorf("Params active = %d, published %d", active, m.PublishedActive)
			}
		})
	}
}

// TestParamsExact pins counts that publishers state to the unit (the
// safetensors index), which Params reproduces exactly for Llama-style models.
func TestParamsExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		total, active int64
	}{
		{"llama-3.1-8b", 8_030_261_248, 8_030_261_248},
		{"llama-3.1-70b", 70_553_706_496, 70_553_706_496},
		{"llama-3.2-1b", 1_235_814_400, 1_235_814_400},
		{"llama-3.2-3b", 3_212_749_824, 3_212_749_824},
		{"mistral-7b-v0.3", 7_248_023_552, 7_248_023_552},
		// 32·(41,943,040 attention + 8·176,160,768 experts + 32,768 router
		// + 8,192 norms) + 2·32000·4096 + 4096; active with 2 experts.
		{"mixtral-8x7b", 46_702_792_704, 12_879_925_248},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			total, active := mustLookup(t, tt.name).Architecture.Params()
			if total != tt.total || active != tt.active {
				t.Errorf("Params = %d, %d; want %d, %d", total, active, tt.total, tt.active)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query, want string
	}{
		{"llama-3.1-8b", "llama-3.1-8b"},
		{"Llama-3.1-8B", "llama-3.1-8b"},
		{"meta-llama/Llama-3.1-8B", "llama-3.1-8b"},
		{"META-LLAMA/llama-3.1-8b-instruct", "llama-3.1-8b"},
		{" google/gemma-2-9b-it ", "gemma-2-9b"},
		{"openai-community/gpt2", "gpt2"},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
		{"mistralai/Mixtral-8x22B-Instruct-v0.1", ""}, // different vocabulary
		{"gpt-4o", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			m, ok := Lookup(tt.query)
			if ok != (tt.want != "") || m.Name != tt.want {
				t.Errorf("Lookup(%q) = %q, %v; want %q", tt.query, m.Name, ok, tt.want)
			}
		})
	}
}

func TestCatalogIsFreshAndUnique(t *testing.T) {
	t.Parallel()
	first := Catalog()
	required := []string{"gpt2", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b",
		"mistral-7b-v0.3", "mixtral-8x7b", "mixtral-8x22b", "qwen2.5-7b", "qwen2.5-72b", "qwen3-30b-a3b", "gemma-2-9b", "gemma-2-27b"}
	for _, name := range required {
		mustLookup(t, name)
	}
	seen := map[string]string{}
	for _, m := range first {
		for _, id := range append([]string{m.Name, m.HFRepo}, m.Aliases...) {
			key := strings.ToLower(id)
			if other, dup := seen[key]; dup && other != m.Name {
				t.Errorf("%q names both %s and %s", id, other, m.Name)
			}
			seen[key] = m.Name
		}
	}
	first[0].Architecture.DModel = 1
	for _, m := range first {
		if m.Architecture.MoE != nil {
			m.Architecture.MoE.Experts = 1
		}
	}
	if !reflect.DeepEqual(Catalog()[0].Architecture, mustLookup(t, first[0].Name).Architecture) || Catalog()[0].Architecture.DModel == 1 {
		t.Error("changing a Catalog result changed the catalog")
	}
	if mustLookup(t, "mixtral-8x7b").Architecture.MoE.Experts != 8 {
		t.Error("changing a Catalog result's MoE changed the catalog")
	}
}
