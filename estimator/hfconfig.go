package estimator

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ConfigError lists what ParseHFConfig could not understand in a Hugging
// Face config.json. Each Problem's Field is a config.json key.
type ConfigError struct {
	ModelType string // empty when the model_type itself is at fault
	Problems  []Problem
}

func (e ConfigError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		if p.Field == "" {
			parts[i] = p.Message
			continue
		}
		parts[i] = fmt.Sprintf("field %q %s", p.Field, p.Message)
	}
	s := "config.json: " + strings.Join(parts, "; ")
	if e.ModelType != "" {
		s += fmt.Sprintf(" (model_type %q)", e.ModelType)
	}
	return s
}

// SupportedModelTypes lists the config.json model_type values
// ParseHFConfig reads, sorted.
func SupportedModelTypes() []string {
	return []string{"gemma", "gemma2", "gpt2", "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe"}
}

// hfFamily holds what a model_type's transformers configuration class does
// when an optional field is absent.
type hfFamily struct {
	kvHeads         int64 // default num_key_value_heads; 0 = num_attention_heads
	headDim         int64 // default head_dim; 0 = hidden_size / num_attention_heads
	headDimRequired bool
	tied            bool   // default tie_word_embeddings
	moe             string // "", "mixtral" or "qwen"
	sharedExpert    bool
}

// hfFamilyOf returns the defaults of the transformers configuration classes
// (configuration_<model_type>.py).
func hfFamilyOf(modelType string) (hfFamily, bool) {
	switch modelType {
	case "llama":
		return hfFamily{}, true
	case "mistral":
		return hfFamily{kvHeads: 8}, true
	case "mixtral":
		return hfFamily{kvHeads: 8, moe: "mixtral"}, true
	case "qwen2":
		return hfFamily{kvHeads: 32}, true
	case "qwen2_moe":
		return hfFamily{kvHeads: 16, moe: "qwen", sharedExpert: true}, true
	case "qwen3":
		return hfFamily{kvHeads: 32, headDim: 128}, true
	case "qwen3_moe":
		// transformers versions disagree on a missing head_dim (128 or
		// hidden_size/num_attention_heads, which differ for Qwen3-30B-A3B),
		// so it must be given.
		return hfFamily{kvHeads: 4, headDimRequired: true, moe: "qwen"}, true
	case "gemma":
		return hfFamily{kvHeads: 16, headDim: 256, tied: true}, true
	case "gemma2":
		return hfFamily{kvHeads: 4, headDim: 256, tied: true}, true
	}
	return hfFamily{}, false
}

// ParseHFConfig reads a Hugging Face config.json as it is published and
// returns the normalized Architecture it describes, or a ConfigError naming
// every field it could not understand (missing, of the wrong JSON type, or
// out of range) or the unsupported model_type.
//
// Field names are each family's own: hidden_size, num_hidden_layers,
// num_attention_heads, num_key_value_heads, head_dim, intermediate_size,
// vocab_size and tie_word_embeddings; Mixtral's num_local_experts and
// num_experts_per_tok (intermediate_size is the expert width and there is no
// dense MLP); Qwen-MoE's num_experts, num_experts_per_tok,
// moe_intermediate_size, shared_expert_intermediate_size (Qwen2-MoE's one
// shared expert; its width-1 gate is not counted), decoder_sparse_step and
// mlp_only_layers (layers that are not sparse become MoE.DenseLayers, of width
// intermediate_size); GPT-2's n_embd, n_layer, n_head, n_inner (absent or null:
// 4·n_embd) and vocab_size.
//
// Sizes are required (a null size is reported like a wrong type). Optional
// fields, absent or null, take the transformers defaults of the family:
// num_key_value_heads (absent: the family default; null: num_attention_heads),
// head_dim (Gemma 256, Qwen3 128, otherwise hidden_size/num_attention_heads;
// Qwen3-MoE must give it), tie_word_embeddings (true for Gemma and GPT-2,
// false otherwise), decoder_sparse_step (1) and mlp_only_layers (none). The
// MLP is gated for every family but GPT-2 (SwiGLU or GeGLU, whatever
// hidden_act says), plain for GPT-2. Other fields (rope, sliding window,
// dtype, …) do not change FLOPs and are ignored; nested multimodal configs
// (text_config) are not read.
func ParseHFConfig(data []byte) (Architecture, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		if err == nil {
			err = errors.New("top-level value is not an object")
		}
		return Architecture{}, fmt.Errorf("config.json: not a JSON object: %w", err)
	}
	r := &hfReader{raw: raw}
	modelType, ok := r.str("model_type")
	if !ok {
		return Architecture{}, r.fail("")
	}
	fam, ok := hfFamilyOf(modelType)
	if modelType != "gpt2" && !ok {
		r.add("model_type", fmt.Sprintf("has unsupported value %q; supported: %s", modelType, strings.Join(SupportedModelTypes(), ", ")))
		return Architecture{}, r.fail("")
	}

	var a Architecture
	if modelType == "gpt2" {
		a = r.gpt2()
	} else {
		a = r.decoder(fam)
	}
	if len(r.problems) > 0 {
		return Architecture{}, r.fail(modelType)
	}
	var ve ValidationError
	if err := a.Validate(); errors.As(err, &ve) {
		for _, p := range ve.Problems {
			if p.Field == "" {
				r.add("", p.Message)
				continue
			}
			r.add(hfField(modelType, p.Field), "is not usable: "+p.Message)
		}
		return Architecture{}, r.fail(modelType)
	}
	return a.Normalized(), nil
}

// decoder reads the Llama-like families.
func (r *hfReader) decoder(fam hfFamily) Architecture {
	a := Architecture{
		DModel:         r.int("hidden_size"),
		Layers:         r.int("num_hidden_layers"),
		Heads:          r.int("num_attention_heads"),
		MLP:            MLPGated,
		Vocab:          r.int("vocab_size"),
		TiedEmbeddings: r.boolean("tie_word_embeddings", fam.tied),
	}
	switch v, st := r.optInt("num_key_value_heads"); st {
	case present:
		a.KVHeads = v
	case absent:
		a.KVHeads = fam.kvHeads // 0 = num_attention_heads
	} // null: num_attention_heads, as transformers does
	if fam.headDimRequired {
		a.HeadDim = r.int("head_dim")
	} else if v, st := r.optInt("head_dim"); st == present {
		a.HeadDim = v
	} else {
		a.HeadDim = fam.headDim
	}

	switch fam.moe {
	case "":
		a.DFF = r.int("intermediate_size")
	case "mixtral":
		a.MoE = &MoE{
			Experts:   r.int("num_local_experts"),
			TopK:      r.int("num_experts_per_tok"),
			DFFExpert: r.int("intermediate_size"),
		}
	case "qwen":
		r.qwenMoE(&a, fam)
	}
	return a
}

// qwenMoE reads Qwen2-MoE and Qwen3-MoE experts. As in transformers, layer
// i (0-based) is sparse when it is not in mlp_only_layers, num_experts > 0
// and (i+1) is a multiple of decoder_sparse_step; the others are dense, of
// width intermediate_size.
func (r *hfReader) qwenMoE(a *Architecture, fam hfFamily) {
	m := &MoE{
		Experts:   r.int("num_experts"),
		TopK:      r.int("num_experts_per_tok"),
		DFFExpert: r.int("moe_intermediate_size"),
	}
	if fam.sharedExpert {
		m.DFFShared = r.int("shared_expert_intermediate_size")
		if m.DFFShared != 0 {
			m.Shared = 1
		}
	}
	step := int64(1)
	if v, st := r.optInt("decoder_sparse_step"); st == present {
		step = v
		if step <= 0 {
			r.add("decoder_sparse_step", fmt.Sprintf("must be positive, got %d", step))
		}
	}
	dense := r.intList("mlp_only_layers")
	if len(r.problems) > 0 || a.Layers <= 0 || a.Layers > MaxDimension || step <= 0 {
		a.MoE = m // sizes are wrong anyway; the problems are reported
		return
	}

	sparse := a.Layers / step
	seen := make(map[int64]bool, len(dense))
	for _, i := range dense {
		switch {
		case i < 0 || i >= a.Layers:
			r.add("mlp_only_layers", fmt.Sprintf("lists layer %d, outside 0..%d", i, a.Layers-1))
		case !seen[i] && (i+1)%step == 0:
			sparse--
		}
		seen[i] = true
	}
	if m.Experts == 0 {
		sparse = 0
	}
	switch {
	case sparse == 0: // every layer is dense
		a.DFF = r.int("intermediate_size")
	case sparse < a.Layers:
		m.DenseLayers = a.Layers - sparse
		a.DFF = r.int("intermediate_size")
		a.MoE = m
	default:
		a.MoE = m
	}
}

// gpt2 reads GPT-2's own field names.
func (r *hfReader) gpt2() Architecture {
	a := Architecture{
		DModel:         r.int("n_embd"),
		Layers:         r.int("n_layer"),
		Heads:          r.int("n_head"),
		MLP:            MLPPlain,
		Vocab:          r.int("vocab_size"),
		TiedEmbeddings: r.boolean("tie_word_embeddings", true),
	}
	if v, st := r.optInt("n_inner"); st == present {
		a.DFF = v
	} else if a.DModel > 0 && a.DModel <= MaxDimension {
		a.DFF = 4 * a.DModel
	} else {
		a.DFF = 1 // n_embd is reported; do not report a derived n_inner too
	}
	return a
}

// hfField names the config.json key behind an Architecture field.
func hfField(modelType, field string) string {
	gpt2 := modelType == "gpt2"
	switch field {
	case "d_model":
		if gpt2 {
			return "n_embd"
		}
		return "hidden_size"
	case "n_layers":
		if gpt2 {
			return "n_layer"
		}
		return "num_hidden_layers"
	case "n_heads", "n_kv_heads":
		if gpt2 {
			return "n_head"
		}
		if field == "n_heads" {
			return "num_attention_heads"
		}
		return "num_key_value_heads"
	case "head_dim":
		if gpt2 {
			return "n_head"
		}
		return "head_dim"
	case "d_ff":
		if gpt2 {
			return "n_inner"
		}
		return "intermediate_size"
	case "vocab":
		return "vocab_size"
	case "moe.n_experts":
		if modelType == "mixtral" {
			return "num_local_experts"
		}
		return "num_experts"
	case "moe.top_k":
		return "num_experts_per_tok"
	case "moe.d_ff_expert":
		if modelType == "mixtral" {
			return "intermediate_size"
		}
		return "moe_intermediate_size"
	case "moe.n_shared", "moe.d_ff_shared":
		return "shared_expert_intermediate_size"
	case "moe.n_dense_layers":
		return "mlp_only_layers"
	}
	return field
}

// hfReader reads typed fields out of a config.json object and collects
// what it could not understand.
type hfReader struct {
	raw      map[string]json.RawMessage
	problems problems
}

type fieldState int

const (
	absent fieldState = iota
	null
	present
	invalid // reported
)

func (r *hfReader) add(field, message string) { r.problems.add(field, message) }

func (r *hfReader) fail(modelType string) error {
	return ConfigError{ModelType: modelType, Problems: r.problems}
}

// str reads a required string.
func (r *hfReader) str(field string) (string, bool) {
	v, ok := r.raw[field]
	if !ok || jsonKind(v) == "null" {
		msg := "is missing"
		if field == "model_type" {
			msg += "; supported: " + strings.Join(SupportedModelTypes(), ", ")
		}
		r.add(field, msg)
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		r.add(field, "must be a string, got "+jsonKind(v))
		return "", false
	}
	return s, true
}

// int reads a required integer.
func (r *hfReader) int(field string) int64 {
	v, st := r.optInt(field)
	switch st {
	case absent:
		r.add(field, "is missing")
	case null:
		r.add(field, "must be an integer, got null")
	}
	return v
}

// optInt reads an optional integer.
func (r *hfReader) optInt(field string) (int64, fieldState) {
	v, ok := r.raw[field]
	switch {
	case !ok:
		return 0, absent
	case jsonKind(v) == "null":
		return 0, null
	}
	n, msg := parseInteger(v)
	if msg != "" {
		r.add(field, msg)
		return 0, invalid
	}
	return n, present
}

// boolean reads an optional boolean.
func (r *hfReader) boolean(field string, def bool) bool {
	v, ok := r.raw[field]
	if !ok || jsonKind(v) == "null" {
		return def
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		r.add(field, "must be a boolean, got "+jsonKind(v))
		return def
	}
	return b
}

// intList reads an optional list of integers.
func (r *hfReader) intList(field string) []int64 {
	v, ok := r.raw[field]
	if !ok || jsonKind(v) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		r.add(field, "must be a list of integers, got "+jsonKind(v))
		return nil
	}
	out := make([]int64, 0, len(items))
	for i, item := range items {
		n, msg := parseInteger(item)
		if msg != "" {
			r.add(field, fmt.Sprintf("item %d %s", i, msg))
			return nil
		}
		out = append(out, n)
	}
	return out
}

// parseInteger accepts a JSON number with an integral value (4096, 4096.0,
// 4.096e3) and otherwise returns why not.
func parseInteger(v json.RawMessage) (int64, string) {
	if kind := jsonKind(v); kind != "number" {
		return 0, "must be an integer, got " + kind
	}
	s := strings.TrimSpace(string(v))
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return n, ""
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, "is out of range: " + s
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.Abs(f) >= 1<<53:
		return 0, "is out of range: " + s
	case f != math.Trunc(f):
		return 0, "must be an integer, got " + s
	}
	return int64(f), ""
}

// jsonKind names the JSON type of a raw value.
func jsonKind(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if s == "" {
		return "nothing"
	}
	switch s[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
