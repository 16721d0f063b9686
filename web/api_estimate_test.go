package web

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// golden compares got with testdata/NAME, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatalf("response is not JSON: %s", got)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./web -update to create it)", err)
	}
	if !bytes.Equal(want, pretty.Bytes()) {
		t.Fatalf("response differs from %s:\n%s", path, pretty.String())
	}
}

type estimateBody struct {
	PrefillFLOPs *big.Int                       `json:"prefill_flops"`
	DecodeFLOPs  *big.Int                       `json:"decode_flops"`
	TotalFLOPs   *big.Int                       `json:"total_flops"`
	Breakdown    map[string]map[string]*big.Int `json:"breakdown"`
	Human        map[string]string              `json:"human"`
	Bloat        *struct {
		Tokens           int64                      `json:"tokens"`
		NormalizedTokens int64                      `json:"normalized_tokens"`
		BloatTokens      int64                      `json:"bloat_tokens"`
		PrefillFLOPs     *big.Int                   `json:"prefill_flops"`
		TotalFLOPs       *big.Int                   `json:"total_flops"`
		BloatRatio       string                     `json:"bloat_ratio"`
		Spans            []struct{ Start, End int } `json:"redundant_spans"`
	} `json:"bloat"`
}

func decodeEstimate(t *testing.T, raw []byte) estimateBody {
	t.Helper()
	var b estimateBody
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return b
}

// tinyArch is small enough to estimate by hand: d=8, one layer, two heads of
// width 4 (multi-head), gated MLP of width 16, vocabulary 10.
const tinyArch = `{"d_model": 8, "n_layers": 1, "n_heads": 2, "d_ff": 16, "mlp": "gated", "vocab": 10}`

func TestEstimateByHand(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "POST", "/v1/estimate", `{"architecture": `+tinyArch+`, "input_tokens": 3, "output_tokens": 2}`)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	// Per processed token: q_proj 2·8·2·4 = 128, kv_proj 2·2·8·2·4 = 256,
	// out_proj 2·2·4·8 = 128, mlp 3·2·8·16 = 768. Attention: 2·H·hd = 16
	// per attended position, for scores and again for values. lm_head 2·8·10 = 160.
	// Prefill, positions 1..3 (attending to 1+2+3 = 6 positions):
	//   128·3 + 256·3 + 128·3 + 768·3 + 16·6 + 16·6 + 160 = 4192.
	// Decode, one step at position 4: 128 + 256 + 128 + 768 + 64 + 64 + 160 = 1568.
	b := decodeEstimate(t, w.Body.Bytes())
	if b.PrefillFLOPs.Int64() != 4192 || b.DecodeFLOPs.Int64() != 1568 || b.TotalFLOPs.Int64() != 5760 {
		t.Fatalf("prefill %s decode %s total %s, want 4192 1568 5760", b.PrefillFLOPs, b.DecodeFLOPs, b.TotalFLOPs)
	}
	want := map[string]map[string]int64{
		"prefill": {"q_proj": 384, "kv_proj": 768, "out_proj": 384, "mlp": 2304, "attn_scores": 96, "attn_values": 96, "router": 0, "lm_head": 160},
		"decode":  {"q_proj": 128, "kv_proj": 256, "out_proj": 128, "mlp": 768, "attn_scores": 64, "attn_values": 64, "router": 0, "lm_head": 160},
	}
	for phase, comps := range want {
		for c, v := range comps {
			if got := b.Breakdown[phase][c]; got == nil || got.Int64() != v {
				t.Errorf("%s %s = %v, want %d", phase, c, got, v)
			}
		}
	}
	golden(t, "estimate_tiny.json", w.Body.Bytes())
}

// TestEstimateHugeIsExact: a 2,000,000-token prompt on Llama-3.1-405B over
// a million requests is a valid request, and the FLOPs come back as plain
// JSON integers, not floats in exponent form.
func TestEstimateHugeIsExact(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "POST", "/v1/estimate", `{"model": "meta-llama/Llama-3.1-405B", "input_tokens": 2000000000000, "output_tokens": 1000000000, "requests": 1000000}`)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	for _, f := range []string{"prefill_flops", "decode_flops", "total_flops"} {
		if !regexp.MustCompile(`"` + f + `":[1-9][0-9]{20,}[,}]`).Match(w.Body.Bytes()) {
			t.Errorf("%s is not a plain integer of 21+ digits in %s", f, w.Body)
		}
	}
	b := decodeEstimate(t, w.Body.Bytes())
	sum := new(big.Int)
	for _, phase := range []string{"prefill", "decode"} {
		for _, v := range b.Breakdown[phase] {
			sum.Add(sum, v)
		}
	}
	if sum.Cmp(b.TotalFLOPs) != 0 || new(big.Int).Add(b.PrefillFLOPs, b.DecodeFLOPs).Cmp(b.TotalFLOPs) != 0 {
		t.Fatalf("breakdown %s and phases do not sum to total %s", sum, b.TotalFLOPs)
	}
	if !strings.HasSuffix(b.Human["total"], "FLOPs") {
		t.Fatalf("human total %q", b.Human["total"])
	}
	golden(t, "estimate_405b_2m.json", w.Body.Bytes())
}

func TestEstimatePromptBloat(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	prompt := "Summarise this:   \n\n\n   \n\nThe cat sat.\t\t\n\n\n\n\n    indented line  \n\n\n"
	body, _ := json.Marshal(map[string]any{"model": "llama-3.1-8b", "prompt": prompt, "output_tokens": 10, "requests": 4})
	w := do(api, "POST", "/v1/estimate", string(body))
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	b := decodeEstimate(t, w.Body.Bytes())
	if b.Bloat == nil {
		t.Fatalf("no bloat in %s", w.Body)
	}
	// Counted independently with the same tokenizer:
	normalized := "Summarise this:\n\nThe cat sat.\n\n    indented line"
	nTok, _ := tokens.Count("o200k_base", normalized)
	pTok, _ := tokens.Count("o200k_base", prompt)
	if b.Bloat.Tokens != int64(pTok) || b.Bloat.NormalizedTokens != int64(nTok) || b.Bloat.BloatTokens != int64(pTok-nTok) || pTok <= nTok {
		t.Fatalf("bloat %+v, want tokens %d normalized %d", *b.Bloat, pTok, nTok)
	}
	// input_tokens is the prompt's tokens once per request.
	var top struct {
		InputTokens int64 `json:"input_tokens"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &top)
	if top.InputTokens != 4*int64(pTok) {
		t.Fatalf("input_tokens %d, want 4×%d", top.InputTokens, pTok)
	}
	// The bloat's prefill cost is the difference with the lean prompt.
	lean, _ := json.Marshal(map[string]any{"model": "llama-3.1-8b", "input_tokens": 4 * nTok, "output_tokens": 10, "requests": 4})
	lb := decodeEstimate(t, do(api, "POST", "/v1/estimate", string(lean)).Body.Bytes())
	if diff := new(big.Int).Sub(b.PrefillFLOPs, lb.PrefillFLOPs); diff.Cmp(b.Bloat.PrefillFLOPs) != 0 || diff.Sign() <= 0 {
		t.Fatalf("bloat prefill %s, want %s", b.Bloat.PrefillFLOPs, diff)
	}
	// Removing the spans gives the normalised prompt.
	var kept strings.Builder
	last := 0
	for _, s := range b.Bloat.Spans {
		kept.WriteString(prompt[last:s.Start])
		last = s.End
	}
	kept.WriteString(prompt[last:])
	if kept.String() != normalized {
		t.Fatalf("spans leave %q, want %q", kept.String(), normalized)
	}
}

func TestEstimateBadInput(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	huge := `{"model": "gpt2", "output_tokens": 1, "prompt": "` + strings.Repeat("a", 4<<20+1) + `"}`
	cases := []struct {
		name, body, ctype string
		status            int
		code, field       string
	}{
		{"not JSON", `{"model": `, "", 400, "invalid_json", ""},
		{"empty body", ``, "", 400, "invalid_json", ""},
		{"two values", `{"model":"gpt2","input_tokens":1,"output_tokens":1} {}`, "", 400, "invalid_json", ""},
		{"wrong content type", `model=gpt2`, "application/x-www-form-urlencoded", 415, "unsupported_media_type", ""},
		{"fraction where an integer belongs", `{"model": "gpt2", "input_tokens": 1.5, "output_tokens": 1}`, "", 422, "invalid_request", "input_tokens"},
		{"number too large for 64 bits", `{"model": "gpt2", "input_tokens": 1e30, "output_tokens": 1}`, "", 422, "invalid_request", "input_tokens"},
		{"string for a number", `{"model": "gpt2", "input_tokens": "12", "output_tokens": 1}`, "", 422, "invalid_request", "input_tokens"},
		{"negative tokens", `{"model": "gpt2", "input_tokens": -1, "output_tokens": 1}`, "", 422, "invalid_request", "input_tokens"},
		{"cached above input", `{"model": "gpt2", "input_tokens": 10, "cached_input_tokens": 11, "output_tokens": 1}`, "", 422, "invalid_request", "cached_input_tokens"},
		{"output missing", `{"model": "gpt2", "input_tokens": 10}`, "", 422, "invalid_request", "output_tokens"},
		{"two models", `{"model": "gpt2", "architecture": ` + tinyArch + `, "input_tokens": 10, "output_tokens": 1}`, "", 422, "invalid_request", "model"},
		{"no model", `{"input_tokens": 10, "output_tokens": 1}`, "", 422, "invalid_request", "model"},
		{"tokens and prompt", `{"model": "gpt2", "input_tokens": 10, "prompt": "hi", "output_tokens": 1}`, "", 422, "invalid_request", "prompt"},
		{"unknown tokenizer", `{"model": "gpt2", "prompt": "hi", "tokenizer": "p50k", "output_tokens": 1}`, "", 422, "invalid_request", "tokenizer"},
		{"empty prompt", `{"model": "gpt2", "prompt": "", "output_tokens": 1}`, "", 422, "invalid_request", "prompt"},
		{"unknown field", `{"model": "gpt2", "input_tokens": 10, "output_tokens": 1, "temperature": 0.2}`, "", 422, "invalid_request", "temperature"},
		{"heads not a multiple of kv heads", `{"architecture": {"d_model": 8, "n_layers": 1, "n_heads": 3, "n_kv_heads": 2, "head_dim": 4, "d_ff": 16, "mlp": "gated", "vocab": 10}, "input_tokens": 1, "output_tokens": 1}`, "", 422, "invalid_request", "architecture.n_kv_heads"},
		{"top_k above experts", `{"architecture": {"d_model": 8, "n_layers": 1, "n_heads": 2, "d_ff": 0, "mlp": "gated", "vocab": 10, "moe": {"n_experts": 2, "top_k": 3, "d_ff_expert": 4}}, "input_tokens": 1, "output_tokens": 1}`, "", 422, "invalid_request", "architecture.moe.top_k"},
		{"unsupported hf model_type", `{"hf_config": {"model_type": "bert", "hidden_size": 8}, "input_tokens": 1, "output_tokens": 1}`, "", 422, "invalid_request", "hf_config"},
		{"prompt over the limit", huge, "", 422, "invalid_request", "prompt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ct := tc.ctype
			if ct == "" {
				ct = "application/json"
			}
			w := do(api, "POST", "/v1/estimate", tc.body, "Content-Type", ct)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			e := errorBody(t, w)
			if e.Code != tc.code {
				t.Fatalf("code %q, want %q", e.Code, tc.code)
			}
			if tc.field != "" && !detailsName(e.Details, tc.field) {
				t.Fatalf("details do not name %q: %s", tc.field, w.Body)
			}
		})
	}
}

// detailsName reports whether a 422's details list a problem with field
// name (or a field under it).
func detailsName(details any, name string) bool {
	list, _ := details.([]any)
	for _, d := range list {
		m, _ := d.(map[string]any)
		if f, _ := m["field"].(string); f == name || strings.HasPrefix(f, name+".") {
			return true
		}
	}
	return false
}

func TestEstimateUnknownModelSuggests(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "POST", "/v1/estimate", `{"model": "llama-3.1-8", "input_tokens": 10, "output_tokens": 1}`)
	if w.Code != 404 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	e := errorBody(t, w)
	d, _ := e.Details.(map[string]any)
	sugg, _ := d["suggestions"].([]any)
	if e.Code != "model_not_found" || len(sugg) == 0 || sugg[0] != "llama-3.1-8b" {
		t.Fatalf("want llama-3.1-8b suggested first: %s", w.Body)
	}
}

func TestEstimateBatch(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "POST", "/v1/estimate/batch", `[
		{"architecture": `+tinyArch+`, "input_tokens": 3, "output_tokens": 2},
		{"model": "no-such-model", "input_tokens": 3, "output_tokens": 2},
		{"model": "gpt2", "input_tokens": 3.5, "output_tokens": 2},
		{"model": "gpt2", "input_tokens": 3, "output_tokens": 0}
	]`)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(w.Body.Bytes(), &items); err != nil || len(items) != 4 {
		t.Fatalf("want 4 items: %s", w.Body)
	}
	if string(items[0]["total_flops"]) != "5760" || items[3]["total_flops"] == nil {
		t.Fatalf("good items not estimated: %s", w.Body)
	}
	for i, code := range map[int]string{1: "model_not_found", 2: "invalid_request"} {
		var e struct{ Code string }
		if err := json.Unmarshal(items[i]["error"], &e); err != nil || e.Code != code {
			t.Fatalf("item %d: want error %s in place: %s", i, code, w.Body)
		}
	}
	if w := do(api, "POST", "/v1/estimate/batch", `{"model": "gpt2"}`); w.Code != 422 {
		t.Fatalf("a batch must be an array: %d %s", w.Code, w.Body)
	}
}
