package billing

import (
	"math/big"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// The FLOPs of the two-workload scenario come from a toy dense model,
// stated here because the test cannot import the estimator: N = 8·10^9
// matmul parameters, L = 32 layers, d = 4,096. A token that attends to ctx
// positions costs 2·N + 4·L·d·ctx FLOPs (2 FLOPs per multiply-accumulate
// over the weights, plus attention scores and values, 2·d·ctx each per
// layer). Following MISSION.md's positions, prefill over P prompt tokens is
//
//	Σ_{i=1..P} (2N + 4Ld·i) = 2N·P + 2Ld·P·(P+1)
//
// and decode of O output tokens is O−1 steps at positions P+1..P+O−1:
//
//	Σ_{j=1..O−1} (2N + 4Ld·(P+j)) = 2N·(O−1) + 2Ld·(O−1)·(2P+O).
const (
	toyParams = 8_000_000_000
	toyLd     = 32 * 4096
)

func toyPrefill(p int64) *big.Int {
	n := big.NewInt(2 * toyParams * p)
	attn := new(big.Int).Mul(big.NewInt(2*toyLd), big.NewInt(p*(p+1)))
	return n.Add(n, attn)
}

func toyDecode(p, o int64) *big.Int {
	if o < 2 {
		return new(big.Int)
	}
	n := big.NewInt(2 * toyParams * (o - 1))
	attn := new(big.Int).Mul(big.NewInt(2*toyLd*(o-1)), big.NewInt(2*p+o))
	return n.Add(n, attn)
}

// TestTwoWorkloads is MISSION.md's central example: under $3/M input and
// $15/M output, and a FLOPs plan at the revenue-neutral price, support chat
// (short prompt, long answer) is cheaper under FLOPs billing and the code
// assistant (long prompt, short answer) dearer. Expected amounts were
// computed independently with exact rational arithmetic.
func TestTwoWorkloads(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	tokens := Plan{Name: "list-price", Kind: KindRequest, Versions: []Version{
		NewRequestVersion(day(t, "2026-01-01"), map[string]RequestPrices{
			DefaultModel: {InputPerMTok: d("3"), OutputPerMTok: d("15")},
		}),
	}}
	workloads := []struct {
		name                     string
		requests, input, output  int64
		wantPrefill, wantDecode  string
		wantRequestCost          string
		wantFLOPsCost, wantDelta string
		wantPct, wantBreakEven   string
		wantShare                string
	}{
		{
			name: "support-chat", requests: 100_000, input: 150, output: 400,
			wantPrefill: "240593756160000000", wantDecode: "645721681920000000",
			wantRequestCost: "645", // 100,000 × (150 × 3 + 400 × 15) / 10^6
			wantFLOPsCost:   "262.1425734888611018222592", wantDelta: "-382.8574265111388981777408",
			wantPct: "-59.3577", wantBreakEven: "0.000727731879969557", wantShare: "0.271454",
		},
		{
			name: "code-assistant", requests: 1_000, input: 60_000, output: 200,
			wantPrefill: "1903734128640000000", wantDecode: "9454432051200000",
			wantRequestCost: "183", // 1,000 × (60,000 × 3 + 200 × 15) / 10^6
			wantFLOPsCost:   "565.857426511138690230002688", wantDelta: "382.857426511138690230002688",
			wantPct: "209.2117", wantBreakEven: "0.00009565183681314", wantShare: "0.995058",
		},
	}

	// Price each workload under the request plan, as a rollup of its
	// identical requests.
	var groups []Group
	usages := make([]Usage, len(workloads))
	for i, w := range workloads {
		n := big.NewInt(w.requests)
		usages[i] = Usage{
			Model: "toy-8b", Requests: w.requests,
			InputTokens: w.requests * w.input, OutputTokens: w.requests * w.output,
			PrefillFLOPs: decimal.NewFromBigInt(new(big.Int).Mul(n, toyPrefill(w.input)), 0),
			DecodeFLOPs:  decimal.NewFromBigInt(new(big.Int).Mul(n, toyDecode(w.input, w.output)), 0),
		}
		equalDecimal(t, w.name+" prefill FLOPs", d(w.wantPrefill), usages[i].PrefillFLOPs)
		equalDecimal(t, w.name+" decode FLOPs", d(w.wantDecode), usages[i].DecodeFLOPs)
		cost, err := tokens.Price(usages[i], at)
		if err != nil {
			t.Fatal(err)
		}
		equalDecimal(t, w.name+" request cost", d(w.wantRequestCost), cost)
		groups = append(groups, Group{Key: w.name, RequestCost: cost, PrefillFLOPs: usages[i].PrefillFLOPs, DecodeFLOPs: usages[i].DecodeFLOPs})
	}

	// The revenue-neutral price: 828 / 2,799,503.9987712 TFLOPs.
	neutral, ok := RevenueNeutralPerTFLOP(groups)
	if !ok {
		t.Fatal("no revenue-neutral price")
	}
	equalDecimal(t, "revenue-neutral price", d("0.000295766678798615"), neutral)

	// A FLOPs plan at that price, which a plan accepts as it is.
	flops := Plan{Name: "flops-tariff", Kind: KindFLOPs, Versions: []Version{NewFLOPsVersion(day(t, "2026-01-01"), neutral, neutral)}}
	if err := flops.Validate(); err != nil {
		t.Fatalf("the revenue-neutral price is not a valid plan price: %v", err)
	}
	for i := range groups {
		c, err := flops.Price(usages[i], at)
		if err != nil {
			t.Fatal(err)
		}
		groups[i].FLOPsCost = c
	}

	rows, total := CompareAll(groups)
	for i, w := range workloads {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			r := rows[i]
			if r.Key != w.name {
				t.Fatalf("row %d is %q", i, r.Key)
			}
			equalDecimal(t, "FLOPs cost", d(w.wantFLOPsCost), r.FLOPsCost)
			equalDecimal(t, "delta", d(w.wantDelta), r.Delta)
			equalDecimal(t, "delta_pct", d(w.wantPct), *r.DeltaPct)
			equalDecimal(t, "break-even", d(w.wantBreakEven), *r.BreakEvenPerTFLOP)
			equalDecimal(t, "prefill share", d(w.wantShare), *r.PrefillShare)
			equalDecimal(t, "total FLOPs", d(w.wantPrefill).Add(d(w.wantDecode)), r.TotalFLOPs)
		})
	}
	if !rows[0].Delta.IsNegative() {
		t.Errorf("support chat is not cheaper under FLOPs billing: delta %s", rows[0].Delta)
	}
	if !rows[1].Delta.IsPositive() {
		t.Errorf("the code assistant is not dearer under FLOPs billing: delta %s", rows[1].Delta)
	}
	// At the (rounded) revenue-neutral price the totals agree to within the
	// rounding of the price: 2.08·10^-13 dollars here.
	equalDecimal(t, "total request cost", d("828"), total.RequestCost)
	equalDecimal(t, "total FLOPs cost", d("827.999999999999792052261888"), total.FLOPsCost)
	equalDecimal(t, "total break-even", neutral, *total.BreakEvenPerTFLOP)
	equalDecimal(t, "total delta_pct", d("0"), *total.DeltaPct)
	if total.Key != "" {
		t.Errorf("total key = %q", total.Key)
	}
}

func TestCompareUndefined(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                          string
		g                             Group
		wantPct, wantBreak, wantShare string // "" for undefined
	}{
		{"nothing at all", Group{}, "", "", ""},
		{"no request cost", Group{FLOPsCost: d("1"), PrefillFLOPs: d("1000000000000")}, "", "0", "1"},
		{"no FLOPs", Group{RequestCost: d("2"), FLOPsCost: d("0")}, "-100", "", ""},
		{
			name: "rounding half away from zero",
			// delta_pct = 1/3·100 = 33.33333…; share = 2/3; break-even = 1 / 3 TFLOPs.
			g:       Group{RequestCost: d("3"), FLOPsCost: d("4"), PrefillFLOPs: d("2000000000000"), DecodeFLOPs: d("1000000000000")},
			wantPct: "33.3333", wantBreak: "1", wantShare: "0.666667",
		},
		{
			name:    "negative delta rounds away from zero",
			g:       Group{RequestCost: d("3"), FLOPsCost: d("1"), PrefillFLOPs: d("0"), DecodeFLOPs: d("3000000000000000000")},
			wantPct: "-66.6667", wantBreak: "0.000001", wantShare: "0",
		},
		{
			name:    "break-even keeps 18 places",
			g:       Group{RequestCost: d("1"), PrefillFLOPs: d("3000000000000000")}, // 3,000 TFLOPs
			wantPct: "-100", wantBreak: "0.000333333333333333", wantShare: "1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := Compare(tc.g)
			for _, f := range []struct {
				what string
				got  *decimal.Decimal
				want string
			}{{"delta_pct", c.DeltaPct, tc.wantPct}, {"break-even", c.BreakEvenPerTFLOP, tc.wantBreak}, {"prefill share", c.PrefillShare, tc.wantShare}} {
				switch {
				case f.want == "" && f.got != nil:
					t.Errorf("%s = %s, want undefined", f.what, f.got)
				case f.want != "" && f.got == nil:
					t.Errorf("%s undefined, want %s", f.what, f.want)
				case f.want != "":
					equalDecimal(t, f.what, d(f.want), *f.got)
				}
			}
		})
	}
	if _, ok := RevenueNeutralPerTFLOP(nil); ok {
		t.Error("revenue-neutral price without groups")
	}
}
