package alert

import (
	"testing"

	"github.com/flopledger/flopledger/report"
)

// flopsBase: every baseline day, 10 gpt-4o requests (10,000 input and
// 1,000 output tokens) costing 10^12 prefill and 10^12 decode FLOPs: a
// daily mean of 2·10^12.
func flopsBase() []report.Rollup {
	return baseDays(func(r *report.Rollup) {
		r.Records, r.Requests, r.InputTokens, r.OutputTokens = 10, 10, 10_000, 1_000
		r.PrefillFLOPs, r.DecodeFLOPs = dec("1000000000000"), dec("1000000000000")
	})
}

// flopsDay: requests gpt-4o requests (50,000 input and 10,000 output
// tokens) costing 1.5·10^13 prefill and decode FLOPs: 2·10^13 in all
// when decode is 5·10^12, exactly 10× the baseline mean.
func flopsDay(requests int64, decode string) []report.Rollup {
	return []report.Rollup{row(dayD, func(r *report.Rollup) {
		r.Records, r.Requests, r.InputTokens, r.OutputTokens = requests, requests, 50_000, 10_000
		r.PrefillFLOPs, r.DecodeFLOPs = dec("15000000000000"), dec(decode)
	})}
}

func TestFLOPsThresholdAndFloors(t *testing.T) {
	t.Parallel()
	// A baseline whose daily mean is one FLOP short of 10^12.
	thinBase := baseDays(func(r *report.Rollup) { r.Records, r.Requests, r.PrefillFLOPs = 100, 100, dec("999999999999") })
	cases := []struct {
		name      string
		day, base []report.Rollup
		want      bool
	}{
		{"exactly 10× fires", flopsDay(50, "5000000000000"), flopsBase(), true},
		{"one FLOP short of 10× does not", flopsDay(50, "4999999999999"), flopsBase(), false},
		{"49 requests on the day is below the floor", flopsDay(49, "5000000000000"), flopsBase(), false},
		{"a baseline mean below 10^12 FLOPs is below the floor", flopsDay(500, "500000000000000"), thinBase, false},
		{"no baseline", flopsDay(500, "5000000000000"), nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, got := flopsAlert("support-chat", testDay, tc.day, tc.base, DefaultThresholds().FLOPs, testPlans())
			if got != tc.want {
				t.Errorf("fires = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFLOPsAlert(t *testing.T) {
	t.Parallel()
	a, ok := flopsAlert("support-chat", testDay, flopsDay(50, "5000000000000"), flopsBase(), DefaultThresholds().FLOPs, testPlans())
	if !ok {
		t.Fatal("did not fire")
	}
	if want := "Workload support-chat spent 20,000,000,000,000 FLOPs on 2026-10-05, 10× its daily mean of the 7 days before " +
		"(2,000,000,000,000; the threshold is 10×)."; a.Sentence != want {
		t.Errorf("sentence:\n got %s\nwant %s", a.Sentence, want)
	}
	wantEvidence := `{"window":{"start":"2026-10-05T00:00:00Z","end":"2026-10-06T00:00:00Z"},` +
		`"baseline":{"start":"2026-09-28T00:00:00Z","end":"2026-10-05T00:00:00Z"},"threshold":"10","observed":"10",` +
		`"flops":{"requests":50,"flops":20000000000000,"prefill_flops":15000000000000,"decode_flops":5000000000000,` +
		`"baseline_flops":14000000000000,"baseline_daily_mean_flops":2000000000000,"extra_flops":18000000000000,"growth":[` +
		`{"by":"model","value":"gpt-4o","window":20000000000000,"baseline_daily_mean":2000000000000,"growth":18000000000000},` +
		`{"by":"tag:team","value":"care","window":20000000000000,"baseline_daily_mean":2000000000000,"growth":18000000000000}]}}`
	if got := mustJSON(t, a.Evidence); got != wantEvidence {
		t.Errorf("evidence:\n got %s\nwant %s", got, wantEvidence)
	}
	// FLOPs plan: 18 extra TFLOP split 3:1 like the day's, 13.5 × $0.002 +
	// 4.5 × $0.006 = $0.054. Request plan: the day's bill (50,000 × $2.50/M
	// + 10,000 × $10/M = $0.225) minus the baseline's daily mean (10,000 ×
	// $2.50/M + 1,000 × $10/M = $0.035).
	c := a.Cost
	if c.FLOPs != "18000000000000" || decString(c.FLOPsCost) != "0.054" || decString(c.RequestCost) != "0.19" {
		t.Errorf("cost = %s FLOPs, request %s, flops %s; want 18000000000000, 0.19, 0.054",
			c.FLOPs, decString(c.RequestCost), decString(c.FLOPsCost))
	}
}

// TestFLOPsCostRounding: a mean of a seventh rounds money to MoneyPlaces
// places and FLOPs to a whole FLOP, half away from zero.
func TestFLOPsCostRounding(t *testing.T) {
	t.Parallel()
	base := flopsBase()
	base[0].PrefillFLOPs = dec("1000000000001") // total 14·10^12 + 1: mean 2·10^12 + 1/7
	a, ok := flopsAlert("support-chat", testDay, flopsDay(50, "500000000000000"), base, DefaultThresholds().FLOPs, testPlans())
	if !ok {
		t.Fatal("did not fire")
	}
	// extra = 5.15·10^14 − (2·10^12 + 1/7) = 512,999,999,999,999.857… → …000
	if got := a.Evidence.FLOPs.ExtraFLOPs; got != "513000000000000" {
		t.Errorf("extra FLOPs = %s", got)
	}
	// 513 TFLOP × (15 × $0.002 + 500 × $0.006) / 515 TFLOP =
	// 3.018233009708737864…, rounded at the 12th place.
	if got := decString(a.Cost.FLOPsCost); got != "3.018233009709" {
		t.Errorf("FLOPs cost = %s", got)
	}
}
