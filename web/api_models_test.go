package web

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type modelBody struct {
	Name         string          `json:"name"`
	Source       string          `json:"source"`
	StandInFor   string          `json:"stand_in_for"`
	Version      int             `json:"version"`
	TotalParams  int64           `json:"total_params"`
	Architecture json.RawMessage `json:"architecture"`
}

func decodeModel(t *testing.T, raw []byte) modelBody {
	t.Helper()
	var m modelBody
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return m
}

func TestModelLifecycle(t *testing.T) {
	t.Parallel()
	api := newAPI(t)

	w := do(api, "POST", "/v1/models", `{"name": "tiny-1", "architecture": `+tinyArch+`}`)
	if w.Code != 201 || w.Header().Get("Location") != "/v1/models/tiny-1" {
		t.Fatalf("register: %d %s", w.Code, w.Body)
	}
	if m := decodeModel(t, w.Body.Bytes()); m.Version != 1 || m.Source != "architecture" {
		t.Fatalf("registered %+v", m)
	}
	// The same architecture again changes nothing; a new one bumps the version.
	if m := decodeModel(t, do(api, "POST", "/v1/models", `{"name": "tiny-1", "architecture": `+tinyArch+`}`).Body.Bytes()); m.Version != 1 {
		t.Fatalf("re-registering the same architecture moved the version to %d", m.Version)
	}
	w = do(api, "POST", "/v1/models", `{"name": "tiny-1", "architecture": {"d_model": 8, "n_layers": 2, "n_heads": 2, "d_ff": 16, "mlp": "gated", "vocab": 10}}`)
	if m := decodeModel(t, w.Body.Bytes()); w.Code != 200 || m.Version != 2 {
		t.Fatalf("replace: %d %+v", w.Code, m)
	}

	// A registered model estimates like any other: two layers now.
	w = do(api, "POST", "/v1/estimate", `{"model": "tiny-1", "input_tokens": 3, "output_tokens": 2}`)
	if b := decodeEstimate(t, w.Body.Bytes()); w.Code != 200 || b.TotalFLOPs.Int64() != 2*5760-2*160 {
		t.Fatalf("estimate on a registered model: %d %s", w.Code, w.Body)
	}

	w = do(api, "GET", "/v1/models", "")
	var list struct{ Models []modelBody }
	_ = json.Unmarshal(w.Body.Bytes(), &list)
	names := map[string]bool{}
	for _, m := range list.Models {
		names[m.Name] = true
	}
	if !names["tiny-1"] || !names["llama-3.1-405b"] || !names["qwen3-30b-a3b"] {
		t.Fatalf("list lacks built-in or registered models: %v", names)
	}

	if w := do(api, "DELETE", "/v1/models/tiny-1", ""); w.Code != 204 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	if w := do(api, "GET", "/v1/models/tiny-1", ""); w.Code != 404 {
		t.Fatalf("deleted model still there: %d", w.Code)
	}
	if w := do(api, "DELETE", "/v1/models/tiny-1", ""); w.Code != 404 {
		t.Fatalf("second delete: %d", w.Code)
	}
	if w := do(api, "DELETE", "/v1/models/gpt2", ""); w.Code != 409 || errorBody(t, w).Code != "builtin_model" {
		t.Fatalf("deleting a built-in: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/models", `{"name": "gpt2", "architecture": `+tinyArch+`}`); w.Code != 409 {
		t.Fatalf("replacing a built-in: %d %s", w.Code, w.Body)
	}
}

// TestStandIn maps a hosted model's name to a published architecture.
func TestStandIn(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "POST", "/v1/models", `{"name": "claude-3-5-sonnet-20241022", "stand_in_for": "meta-llama/Llama-3.1-405B"}`)
	m := decodeModel(t, w.Body.Bytes())
	if w.Code != 201 || m.Source != "stand_in" || m.StandInFor != "llama-3.1-405b" {
		t.Fatalf("stand-in: %d %s", w.Code, w.Body)
	}
	llama := decodeModel(t, do(api, "GET", "/v1/models/llama-3.1-405b", "").Body.Bytes())
	if string(m.Architecture) != string(llama.Architecture) || m.TotalParams != llama.TotalParams {
		t.Fatalf("stand-in architecture %s differs from llama's %s", m.Architecture, llama.Architecture)
	}
	a := do(api, "POST", "/v1/estimate", `{"model": "claude-3-5-sonnet-20241022", "input_tokens": 1000, "output_tokens": 100}`)
	b := do(api, "POST", "/v1/estimate", `{"model": "llama-3.1-405b", "input_tokens": 1000, "output_tokens": 100}`)
	if decodeEstimate(t, a.Body.Bytes()).TotalFLOPs.Cmp(decodeEstimate(t, b.Body.Bytes()).TotalFLOPs) != 0 {
		t.Fatalf("stand-in estimates differently: %s vs %s", a.Body, b.Body)
	}
	if w := do(api, "POST", "/v1/models", `{"name": "x", "stand_in_for": "gtp-4"}`); w.Code != 422 || !strings.Contains(w.Body.String(), "stand_in_for") {
		t.Fatalf("stand-in for an unknown model: %d %s", w.Code, w.Body)
	}
}

// TestRegisterHFConfig pastes a real config.json as it is.
func TestRegisterHFConfig(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	cfg, err := os.ReadFile("../estimator/testdata/hf/mixtral-8x7b.json")
	if err != nil {
		t.Fatal(err)
	}
	w := do(api, "POST", "/v1/models", `{"name": "my-mixtral", "hf_config": `+string(cfg)+`}`)
	m := decodeModel(t, w.Body.Bytes())
	ref := decodeModel(t, do(api, "GET", "/v1/models/mixtral-8x7b", "").Body.Bytes())
	if w.Code != 201 || m.Source != "hf_config" || string(m.Architecture) != string(ref.Architecture) {
		t.Fatalf("hf_config: %d %s, want the architecture of %s", w.Code, w.Body, ref.Architecture)
	}
	bad := strings.Replace(string(cfg), `"num_attention_heads"`, `"num_attention_heads_x"`, 1)
	w = do(api, "POST", "/v1/models", `{"name": "broken", "hf_config": `+bad+`}`)
	if w.Code != 422 || !strings.Contains(w.Body.String(), "num_attention_heads") {
		t.Fatalf("missing field must be named: %d %s", w.Code, w.Body)
	}
	cases := map[string]string{
		"no name":          `{"architecture": ` + tinyArch + `}`,
		"slash in name":    `{"name": "a/b", "architecture": ` + tinyArch + `}`,
		"nothing to use":   `{"name": "empty"}`,
		"two sources":      `{"name": "two", "architecture": ` + tinyArch + `, "stand_in_for": "gpt2"}`,
		"bad architecture": `{"name": "bad", "architecture": {"d_model": -8, "n_layers": 0, "n_heads": 2, "d_ff": 16, "mlp": "swish", "vocab": 10}}`,
	}
	for name, body := range cases {
		if w := do(api, "POST", "/v1/models", body); w.Code != 422 {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
}
