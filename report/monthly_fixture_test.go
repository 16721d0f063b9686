package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// Fixtures of the monthly report tests: October 2026, two request-plan
// versions (the second from the 16th), two FLOPs-plan versions (the second
// from the 20th), three workloads on two models, a model the request plan
// does not price, September's usage, budgets and latency. Every expected
// figure in the tests was worked out by hand from these numbers.

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func decp(s string) *decimal.Decimal {
	d := dec(s)
	return &d
}

func oct(day int) billing.Date { return billing.NewDate(2026, 10, day) }

// testRequestPlan prices llama-70b and qwen-7b, and nothing else (no
// default entry).
func testRequestPlan(t *testing.T) billing.Plan {
	t.Helper()
	p := billing.Plan{Name: "list-price", Kind: billing.KindRequest, Versions: []billing.Version{
		billing.NewRequestVersion(billing.NewDate(2026, 1, 1), map[string]billing.RequestPrices{
			"llama-70b": {PerRequest: dec("0.0001"), InputPerMTok: dec("1.00"), CachedInputPerMTok: decp("0.50"), OutputPerMTok: dec("4.00")},
			"qwen-7b":   {InputPerMTok: dec("0.20"), OutputPerMTok: dec("0.60")},
		}),
		billing.NewRequestVersion(oct(16), map[string]billing.RequestPrices{
			"llama-70b": {PerRequest: dec("0.0001"), InputPerMTok: dec("0.80"), CachedInputPerMTok: decp("0.40"), OutputPerMTok: dec("3.20")},
			"qwen-7b":   {InputPerMTok: dec("0.20"), OutputPerMTok: dec("0.60")},
		}),
	}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func testFLOPsPlan(t *testing.T) billing.Plan {
	t.Helper()
	p := billing.Plan{Name: "flops-tariff", Kind: billing.KindFLOPs, Versions: []billing.Version{
		billing.NewFLOPsVersion(billing.NewDate(2026, 1, 1), dec("0.00002"), dec("0.00002")),
		billing.NewFLOPsVersion(oct(20), dec("0.000015"), dec("0.00002")),
	}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// rollup returns a rollup row of one request of one token, edited by set.
func rollup(day billing.Date, workload, model string, set func(*Rollup)) Rollup {
	r := Rollup{Day: day, Workload: workload, Model: model, Tags: map[string]string{}, Records: 1, Requests: 1,
		InputTokens: 1, PrefillFLOPs: dec("1000"), DecodeFLOPs: dec("0")}
	if set != nil {
		set(&r)
	}
	return r
}

// usageRow sets a row's counts: records = requests.
func usageRow(requests, input, cached, output int64, prefill, decode string) func(*Rollup) {
	return func(r *Rollup) {
		r.Records, r.Requests, r.InputTokens, r.CachedTokens, r.OutputTokens = requests, requests, input, cached, output
		r.PrefillFLOPs, r.DecodeFLOPs = dec(prefill), dec(decode)
	}
}

func with(fs ...func(*Rollup)) func(*Rollup) {
	return func(r *Rollup) {
		for _, f := range fs {
			f(r)
		}
	}
}

func bloat(tokens, input int64) func(*Rollup) {
	return func(r *Rollup) { r.BloatTokens, r.BloatInputTokens = tokens, input }
}

func team(name string) func(*Rollup) {
	return func(r *Rollup) { r.Tags = map[string]string{"team": name} }
}

// monthInput is the October 2026 fixture.
func monthInput(t *testing.T) MonthInput {
	t.Helper()
	sep := func(day int) billing.Date { return billing.NewDate(2026, 9, day) }
	return MonthInput{
		Month:       oct(1),
		RequestPlan: testRequestPlan(t),
		FLOPsPlan:   testFLOPsPlan(t),
		Rollups: []Rollup{
			// long prompts, short answers, padded prompts: dearer under FLOPs
			rollup(oct(5), "code-assist", "llama-70b", with(usageRow(100, 2_000_000, 500_000, 50_000, "210000000000000000", "7000000000000000"),
				bloat(150_000, 1_500_000), team("platform"))),
			rollup(oct(25), "code-assist", "llama-70b", with(usageRow(50, 1_000_000, 0, 20_000, "123456789012345678", "2800000000000000"),
				bloat(33_333, 1_000_000), team("platform"))),
			rollup(oct(7), "code-assist", "mystery", with(usageRow(7, 7000, 0, 700, "7000000000000", "700000000000"), team("platform"))),
			rollup(oct(21), "code-assist", "mystery", with(usageRow(5, 5000, 0, 500, "5000000000000", "500000000000"), team("platform"))),
			// short prompts, long answers: cheaper under FLOPs
			rollup(oct(10), "support-chat", "llama-70b", with(usageRow(1000, 500_000, 100_000, 2_000_000, "56000000000000000", "280000000000000000"),
				bloat(1000, 200_000), team("cx"))),
			rollup(oct(20), "support-chat", "qwen-7b", usageRow(2000, 400_000, 0, 1_600_000, "6000000000000000", "24000000000000000")),
			// 10 % bloat, but below the minimum volume
			rollup(oct(3), "tiny-bot", "qwen-7b", with(usageRow(10, 20_000, 0, 5000, "300000000000000", "75000000000000"),
				bloat(2000, 20_000), team("platform"))),
		},
		PrevRollups: []Rollup{
			rollup(sep(15), "code-assist", "llama-70b", usageRow(80, 1_600_000, 400_000, 40_000, "160000000000000000", "5600000000000000")),
			rollup(sep(20), "support-chat", "llama-70b", usageRow(1000, 500_000, 0, 2_000_000, "60000000000000000", "280000000000000000")),
			rollup(sep(2), "retired-bot", "qwen-7b", usageRow(5, 10_000, 0, 1000, "100000000000000", "10000000000000")),
			rollup(sep(3), "code-assist", "mystery", usageRow(9, 9000, 0, 900, "9000000000000", "900000000000")),
		},
		Budgets: map[string]BudgetStatus{
			"code-assist":  {Kind: BudgetMoney, Plan: "flops-tariff", Amount: dec("5"), Spent: dec("6.2"), Forecast: dec("6.5"), State: BudgetExceeded},
			"support-chat": {Kind: BudgetTFLOPs, Amount: dec("400000"), Spent: dec("366000"), Forecast: dec("380000"), UsedPct: decp("91.50"), State: BudgetAtRisk},
			"tiny-bot":     {Kind: BudgetMoney, Plan: "list-price", Amount: dec("1"), Spent: dec("0.007"), Forecast: dec("0.0072"), State: BudgetOK},
			"legacy-batch": {Kind: BudgetMoney, Plan: "list-price", Amount: dec("10"), Spent: dec("12"), Forecast: dec("12"), State: BudgetExceeded},
		},
		Latency: map[string]LatencyStats{
			"support-chat": {Records: 3000, P50MS: 420, P99MS: 1890},
			"code-assist":  {Records: 150, P50MS: 2100, P99MS: 9800},
			"tiny-bot":     {}, // no record reported a latency
		},
		Unpriced:    []Unpriced{{Model: "gpt-unknown", Records: 12, Reason: "unknown model: register it (POST /v1/models) and its records are priced"}},
		GeneratedAt: time.Date(2026, 11, 1, 6, 0, 0, 0, time.FixedZone("CET", 3600)),
	}
}

// figures flattens a row into exact strings, for comparison with a
// hand-written expectation: decimals in plain notation (so "2.8290" and
// "2.829" agree, as decimal equality does), nil pointers as "nil".
func figures(r MonthlyRow) map[string]string {
	ds := func(d decimal.Decimal) string { return plain(d) }
	dp := func(d *decimal.Decimal) string {
		if d == nil {
			return "nil"
		}
		return plain(*d)
	}
	f := map[string]string{
		"key": r.Key, "records": fmt.Sprint(r.Records), "requests": fmt.Sprint(r.Requests),
		"input": fmt.Sprint(r.InputTokens), "cached": fmt.Sprint(r.CachedInputTokens), "output": fmt.Sprint(r.OutputTokens),
		"prefill": r.PrefillFLOPs.String(), "decode": r.DecodeFLOPs.String(), "total_flops": r.TotalFLOPs.String(),
		"prefill_share": dp(r.PrefillShare), "request_cost": ds(r.RequestCost), "flops_cost": ds(r.FLOPsCost),
		"delta": ds(r.Delta), "delta_pct": dp(r.DeltaPct), "break_even": dp(r.BreakEven),
		"bloat": fmt.Sprint(r.BloatTokens), "bloat_input": fmt.Sprint(r.BloatInputTokens), "bloat_pct": dp(r.BloatPct),
		"bloat_flops": r.BloatFLOPs.String(), "bloat_request_cost": ds(r.BloatRequestCost), "bloat_flops_cost": ds(r.BloatFLOPsCost),
		"budget": "nil", "latency": "nil",
		"prev_flops": r.Change.PrevFLOPs.String(), "flops_change": dp(r.Change.FLOPsPct),
		"prev_request_cost": ds(r.Change.PrevRequestCost), "request_cost_change": dp(r.Change.RequestCostPct),
	}
	if b := r.Budget; b != nil {
		f["budget"] = fmt.Sprintf("%s %s %s/%s/%s used %s %s", b.Kind, b.Plan, ds(b.Spent), ds(b.Amount), ds(b.Forecast), dp(b.UsedPct), b.State)
	}
	if l := r.Latency; l != nil {
		ratio := "nil"
		if l.P99OverP50 != nil {
			ratio = fmt.Sprint(*l.P99OverP50)
		}
		f["latency"] = fmt.Sprintf("%d %v %v %s", l.Records, l.P50MS, l.P99MS, ratio)
	}
	return f
}
