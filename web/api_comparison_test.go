package web

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/estimator"
)

type comparisonBody struct {
	Groups []struct {
		Key          string           `json:"key"`
		Requests     int64            `json:"requests"`
		PrefillFLOPs json.Number      `json:"prefill_flops"`
		DecodeFLOPs  json.Number      `json:"decode_flops"`
		RequestCost  decimal.Decimal  `json:"request_cost"`
		FLOPsCost    decimal.Decimal  `json:"flops_cost"`
		Delta        decimal.Decimal  `json:"delta"`
		DeltaPct     *decimal.Decimal `json:"delta_pct"`
		BreakEven    *decimal.Decimal `json:"break_even_price_per_tflop"`
	} `json:"groups"`
	Total struct {
		RequestCost    decimal.Decimal  `json:"request_cost"`
		FLOPsCost      decimal.Decimal  `json:"flops_cost"`
		RevenueNeutral *decimal.Decimal `json:"revenue_neutral_price_per_tflop"`
	} `json:"total"`
	Unpriced []struct {
		Model   string `json:"model"`
		Records int64  `json:"records"`
	} `json:"unpriced"`
}

func mustStatus(t *testing.T, w interface {
	Result() *http.Response
}, want int, what string) {
	t.Helper()
	if got := w.Result().StatusCode; got != want {
		t.Fatalf("%s: status %d, want %d", what, got, want)
	}
}

// TestTwoWorkloadScenario is the case MISSION.md describes: support chat
// (150 in / 400 out per request) and a code assistant (60,000 in / 200 out)
// under a $3/M input, $15/M output price list and a FLOPs tariff at the
// revenue-neutral price. Support chat must come out cheaper under FLOPs
// billing and the code assistant dearer, by the exact amounts computed here
// from the estimator's FLOPs.
func TestTwoWorkloadScenario(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "POST", "/v1/plans", `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01",
		"prices": {"default": {"per_request": "0", "input_per_mtok": "3", "output_per_mtok": "15"}}}`)
	mustStatus(t, w, 201, "create request plan: "+w.Body.String())
	w = do(api, "POST", "/v1/plans", `{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.00001"}`)
	mustStatus(t, w, 201, "create flops plan: "+w.Body.String())

	// 1,000 support-chat requests and 100 code-assistant requests in October.
	var nd strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&nd, `{"id": "s%d", "occurred_at": "2026-10-%02dT10:00:00Z", "workload": "support-chat", "model": "llama-3.1-8b", "input_tokens": 150, "output_tokens": 400}`+"\n", i, 1+i%28)
	}
	for i := range 100 {
		fmt.Fprintf(&nd, `{"id": "c%d", "occurred_at": "2026-10-%02dT10:00:00Z", "workload": "code-assistant", "model": "llama-3.1-8b", "input_tokens": 60000, "output_tokens": 200}`+"\n", i, 1+i%28)
	}
	w = do(api, "POST", "/v1/usage", nd.String(), "Content-Type", "application/x-ndjson")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"accepted":1100`) {
		t.Fatalf("ingest: %d %s", w.Code, w.Body)
	}

	compare := func() comparisonBody {
		w := do(api, "GET", "/v1/comparison?from=2026-10-01&to=2026-11-01", "")
		mustStatus(t, w, 200, "comparison: "+w.Body.String())
		var c comparisonBody
		if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Groups) != 2 || c.Groups[0].Key != "code-assistant" || c.Groups[1].Key != "support-chat" {
			t.Fatalf("groups: %s", w.Body)
		}
		return c
	}
	first := compare()

	// The request bills: 100·(60000·3 + 200·15)/10^6 = 18.3 and
	// 1000·(150·3 + 400·15)/10^6 = 6.45.
	if !first.Groups[0].RequestCost.Equal(decimal.RequireFromString("18.3")) || !first.Groups[1].RequestCost.Equal(decimal.RequireFromString("6.45")) {
		t.Fatalf("request costs %s and %s", first.Groups[0].RequestCost, first.Groups[1].RequestCost)
	}
	// The FLOPs, from the estimator independently of the service.
	m, _ := estimator.Lookup("llama-3.1-8b")
	perRequest := func(in, out int64) *big.Int {
		e, err := estimator.Compute(m.Architecture, estimator.Request{InputTokens: in, OutputTokens: out, Requests: 1})
		if err != nil {
			t.Fatal(err)
		}
		return e.Total
	}
	codeFLOPs := new(big.Int).Mul(perRequest(60000, 200), big.NewInt(100))
	chatFLOPs := new(big.Int).Mul(perRequest(150, 400), big.NewInt(1000))
	for i, want := range []*big.Int{codeFLOPs, chatFLOPs} {
		g := first.Groups[i]
		got, _ := new(big.Int).SetString(string(g.PrefillFLOPs), 10)
		dec, _ := new(big.Int).SetString(string(g.DecodeFLOPs), 10)
		if got.Add(got, dec).Cmp(want) != 0 {
			t.Fatalf("%s FLOPs %s, want %s", g.Key, got, want)
		}
	}
	// Revenue-neutral price: 24.75 dollars over all FLOPs, per TFLOP, to 18 places.
	all := decimal.NewFromBigInt(new(big.Int).Add(codeFLOPs, chatFLOPs), 0)
	neutral := decimal.RequireFromString("24.75").Shift(12).DivRound(all, 18)
	if first.Total.RevenueNeutral == nil || !first.Total.RevenueNeutral.Equal(neutral) {
		t.Fatalf("revenue-neutral %v, want %s", first.Total.RevenueNeutral, neutral)
	}

	// A new version of the tariff at the revenue-neutral price from October
	// on reprices October without touching a record.
	w = do(api, "POST", "/v1/plans/flops-tariff/versions", fmt.Sprintf(`{"effective_from": "2026-10-01", "per_tflop": "%s"}`, neutral))
	mustStatus(t, w, 201, "add an October version: "+w.Body.String())
	c := compare()
	code, chat := c.Groups[0], c.Groups[1]
	wantCode := neutral.Mul(decimal.NewFromBigInt(codeFLOPs, 0)).Shift(-12)
	wantChat := neutral.Mul(decimal.NewFromBigInt(chatFLOPs, 0)).Shift(-12)
	if !code.FLOPsCost.Equal(wantCode) || !chat.FLOPsCost.Equal(wantChat) {
		t.Fatalf("FLOPs costs %s and %s, want %s and %s", code.FLOPsCost, chat.FLOPsCost, wantCode, wantChat)
	}
	if !chat.Delta.IsNegative() || !code.Delta.IsPositive() {
		t.Fatalf("support chat must be cheaper under FLOPs billing (delta %s) and the code assistant dearer (delta %s)", chat.Delta, code.Delta)
	}
	if !chat.Delta.Equal(wantChat.Sub(decimal.RequireFromString("6.45"))) || !code.Delta.Equal(wantCode.Sub(decimal.RequireFromString("18.3"))) {
		t.Fatalf("deltas %s %s", chat.Delta, code.Delta)
	}
	// Revenue-neutral means the totals agree to within the price's rounding.
	if diff := c.Total.FLOPsCost.Sub(c.Total.RequestCost).Abs(); diff.GreaterThan(decimal.RequireFromString("0.000001")) {
		t.Fatalf("total bills differ by %s at the revenue-neutral price", diff)
	}
	t.Logf("support chat %s → %s (%s%%), code assistant %s → %s (%s%%)", chat.RequestCost, chat.FLOPsCost.StringFixed(6), chat.DeltaPct, code.RequestCost, code.FLOPsCost.StringFixed(6), code.DeltaPct)
}

func TestComparisonBadInput(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	for q, field := range map[string]string{
		"from=2026-10-01&to=2026-09-01":                   "to",
		"from=2026-13-01&to=2026-11-01":                   "from",
		"to=2026-11-01":                                   "from",
		"from=2026-10-01&to=2026-11-01&group_by=tag:cost": "group_by",
		"from=2026-10-01&to=2026-11-01&group_by=planet":   "group_by",
		"from=2026-10-01&to=2026-11-01&request_plan=none": "request_plan",
	} {
		w := do(api, "GET", "/v1/comparison?"+q, "")
		if w.Code != 422 || !detailsName(errorBody(t, w).Details, field) {
			t.Errorf("%s: %d %s, want 422 naming %s", q, w.Code, w.Body, field)
		}
	}
}

// TestImportTwiceAddsNothing imports an OpenAI usage export twice through
// the API: the second import finds only duplicates. Its unknown models are
// listed as unpriced.
func TestImportTwiceAddsNothing(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	file, err := os.ReadFile("../importer/testdata/openai_page.json")
	if err != nil {
		t.Fatal(err)
	}
	w := do(api, "POST", "/v1/import?format=openai", string(file))
	var first struct{ Accepted, Duplicates, Items int }
	if err := json.Unmarshal(w.Body.Bytes(), &first); w.Code != 200 || err != nil || first.Accepted == 0 {
		t.Fatalf("first import: %d %s", w.Code, w.Body)
	}
	w = do(api, "POST", "/v1/import?format=openai", string(file))
	var second struct{ Accepted, Duplicates int }
	_ = json.Unmarshal(w.Body.Bytes(), &second)
	if w.Code != 200 || second.Accepted != 0 || second.Duplicates != first.Accepted {
		t.Fatalf("second import: %d %s (first accepted %d)", w.Code, w.Body, first.Accepted)
	}
	w = do(api, "GET", "/v1/usage/unpriced", "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), "gpt-4o") {
		t.Fatalf("unpriced: %s", w.Body)
	}
	if w := do(api, "POST", "/v1/import?format=excel", "x"); w.Code != 422 || !detailsName(errorBody(t, w).Details, "format") {
		t.Fatalf("unknown format: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/import?format=anthropic", "{}"); w.Code != 422 || !strings.Contains(w.Body.String(), "input-tokens-per-request") {
		t.Fatalf("anthropic without tokens per request: %d %s", w.Code, w.Body)
	}
}

// TestEstimateCosts: once plans exist, an estimate carries its cost under
// each, by today's version.
func TestEstimateCosts(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01",
		"prices": {"default": {"input_per_mtok": "3", "cached_input_per_mtok": "0.3", "output_per_mtok": "15"}}}`), 201, "request plan")
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "prefill_per_tflop": "0.00002", "decode_per_tflop": "0.00004"}`), 201, "flops plan")
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "future", "kind": "flops", "effective_from": "2027-01-01", "per_tflop": "1"}`), 201, "future plan")
	w := do(api, "POST", "/v1/estimate", `{"architecture": `+tinyArch+`, "input_tokens": 3000000, "cached_input_tokens": 1000000, "output_tokens": 2000000, "requests": 1000000}`)
	var b struct {
		PrefillFLOPs json.Number `json:"prefill_flops"`
		DecodeFLOPs  json.Number `json:"decode_flops"`
		Costs        []struct {
			Plan  string
			Cost  *decimal.Decimal
			Error string
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || len(b.Costs) != 3 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	pre, dec := decimal.RequireFromString(string(b.PrefillFLOPs)), decimal.RequireFromString(string(b.DecodeFLOPs))
	want := map[string]decimal.Decimal{
		// 2,000,000 uncached·$3 + 1,000,000 cached·$0.3 + 2,000,000 output·$15, per million.
		"list-price":   decimal.RequireFromString("36.3"),
		"flops-tariff": pre.Mul(decimal.RequireFromString("0.00002")).Add(dec.Mul(decimal.RequireFromString("0.00004"))).Shift(-12),
	}
	for _, c := range b.Costs {
		switch c.Plan {
		case "future":
			if c.Cost != nil || c.Error == "" {
				t.Fatalf("a plan without a version today must say so: %+v", c)
			}
		default:
			if c.Cost == nil || !c.Cost.Equal(want[c.Plan]) {
				t.Fatalf("%s costs %v, want %s", c.Plan, c.Cost, want[c.Plan])
			}
		}
	}
}
