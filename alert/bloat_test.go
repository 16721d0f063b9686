package alert

import (
	"testing"

	"github.com/flopledger/flopledger/report"
)

func TestBloatThresholdAndFloors(t *testing.T) {
	t.Parallel()
	// One gpt-4o row with 20 records and 10,000 bloat-known input tokens
	// unless the case changes it.
	day := func(bloat, bloatInput, records int64) []report.Rollup {
		return []report.Rollup{row(dayD, func(r *report.Rollup) {
			r.Records, r.Requests, r.InputTokens = records, records, bloatInput
			r.BloatTokens, r.BloatInputTokens = bloat, bloatInput
		})}
	}
	tenPercent := DefaultThresholds().Bloat
	tenPercent.Share = dec("0.10")
	cases := []struct {
		name string
		rows []report.Rollup
		rule BloatRule
		want bool
	}{
		{"exactly 5.00% fires", day(500, 10_000, 20), DefaultThresholds().Bloat, true},
		{"4.99% does not", day(499, 10_000, 20), DefaultThresholds().Bloat, false},
		{"floors met exactly", day(50, 1_000, 20), DefaultThresholds().Bloat, true},
		{"999 bloat-known input tokens is below the floor", day(999, 999, 20), DefaultThresholds().Bloat, false},
		{"19 records is below the floor", day(5_000, 10_000, 19), DefaultThresholds().Bloat, false},
		{"no bloat known at all", day(0, 0, 100), BloatRule{Share: dec("0.05")}, false},
		{"per-workload threshold 10%: 5% does not fire", day(500, 10_000, 20), tenPercent, false},
		{"per-workload threshold 10%: 10% fires", day(1_000, 10_000, 20), tenPercent, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, got := bloatAlert("support-chat", testDay, tc.rows, tc.rule, testPlans())
			if got != tc.want {
				t.Errorf("fires = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestBloatAlert checks every figure of one alert: 16,250 bloat tokens of
// 225,000 known input tokens (7.22%) across two models.
func TestBloatAlert(t *testing.T) {
	t.Parallel()
	rows := []report.Rollup{
		row(dayD, func(r *report.Rollup) {
			r.Records, r.Requests, r.InputTokens, r.OutputTokens = 40, 40, 200_000, 20_000
			r.BloatTokens, r.BloatInputTokens = 15_000, 200_000
			r.PrefillFLOPs, r.DecodeFLOPs = dec("800000000000000"), dec("100000000000000")
		}),
		row(dayD, func(r *report.Rollup) {
			r.Model, r.Tags = "llama-3.1-8b", map[string]string{"team": "search"}
			r.Records, r.Requests, r.InputTokens = 10, 10, 50_000
			r.BloatTokens, r.BloatInputTokens = 1_250, 25_000 // bloat known for half the input
			r.PrefillFLOPs = dec("50000000000000")
		}),
	}
	a, ok := bloatAlert("support-chat", testDay, rows, DefaultThresholds().Bloat, testPlans())
	if !ok {
		t.Fatal("did not fire")
	}
	if want := "Workload support-chat sent 7.22% of its analysed prompt tokens as redundant whitespace on 2026-10-05 " +
		"(16,250 of 225,000 tokens; the threshold is 5.00%)."; a.Sentence != want {
		t.Errorf("sentence:\n got %s\nwant %s", a.Sentence, want)
	}
	wantEvidence := `{"window":{"start":"2026-10-05T00:00:00Z","end":"2026-10-06T00:00:00Z"},"threshold":"0.05","observed":"0.0722",` +
		`"bloat":{"bloat_tokens":16250,"bloat_input_tokens":225000,"records":50,"models":[` +
		`{"model":"gpt-4o","bloat_tokens":15000,"bloat_input_tokens":200000},` +
		`{"model":"llama-3.1-8b","bloat_tokens":1250,"bloat_input_tokens":25000}]}}`
	if got := mustJSON(t, a.Evidence); got != wantEvidence {
		t.Errorf("evidence:\n got %s\nwant %s", got, wantEvidence)
	}
	// FLOPs: 8·10^14 × 15,000/200,000 + 5·10^13 × 1,250/50,000 = 6·10^13 +
	// 1.25·10^12. Request plan: 15,000 × $2.50/M + 1,250 × $0.20/M.
	// FLOPs plan: 61.25 TFLOP × $0.002.
	c := a.Cost
	if c.FLOPs != "61250000000000" || decString(c.RequestCost) != "0.03775" || decString(c.FLOPsCost) != "0.1225" {
		t.Errorf("cost = %s FLOPs, request %s, flops %s; want 61250000000000, 0.03775, 0.1225",
			c.FLOPs, decString(c.RequestCost), decString(c.FLOPsCost))
	}
	if c.RequestPlan != "std" || c.FLOPsPlan != "tflops" || len(c.Missing) != 0 {
		t.Errorf("cost plans = %q %q, missing %v", c.RequestPlan, c.FLOPsPlan, c.Missing)
	}
	if want := bloatFix + " That removes about 16,250 input tokens a day (gpt-4o: 15,000, llama-3.1-8b: 1,250)."; a.Fix != want {
		t.Errorf("fix:\n got %s\nwant %s", a.Fix, want)
	}
}

// TestBloatCostWithoutPlans: a missing plan leaves its cost out, says so,
// and does not stop the alert.
func TestBloatCostWithoutPlans(t *testing.T) {
	t.Parallel()
	rows := []report.Rollup{row(dayD, func(r *report.Rollup) {
		r.Model = "mystery"
		r.Records, r.Requests, r.InputTokens, r.BloatTokens, r.BloatInputTokens = 20, 20, 10_000, 1_000, 10_000
		r.PrefillFLOPs = dec("1000000000001") // 10% of it is 100,000,000,000.1: rounds to a whole FLOP
	})}
	p := testPlans()
	delete(p.Request.Versions[0].Request, "default")
	p.FLOPs, p.Missing = nil, []string{`no plan is called "tflops"`}
	a, ok := bloatAlert("support-chat", testDay, rows, DefaultThresholds().Bloat, p)
	if !ok {
		t.Fatal("did not fire")
	}
	c := a.Cost
	if c.FLOPs != "100000000000" || c.RequestCost != nil || c.FLOPsCost != nil {
		t.Errorf("cost = %s FLOPs, request %s, flops %s", c.FLOPs, decString(c.RequestCost), decString(c.FLOPsCost))
	}
	want := []string{`no plan is called "tflops"`, `model "mystery" has no price (and no default) in request plan "std"; its part is left out`}
	if mustJSON(t, c.Missing) != mustJSON(t, want) {
		t.Errorf("missing = %q, want %q", c.Missing, want)
	}
}

func TestAlertText(t *testing.T) {
	t.Parallel()
	rows := []report.Rollup{row(dayD, func(r *report.Rollup) {
		r.Records, r.Requests, r.InputTokens, r.BloatTokens, r.BloatInputTokens = 20, 20, 10_000, 500, 10_000
		r.PrefillFLOPs = dec("1000000000000000")
	})}
	a, _ := bloatAlert("support-chat", testDay, rows, DefaultThresholds().Bloat, testPlans())
	a.ID, a.State, a.OpenedAt = 7, Open, testNow
	if want := "flopledger whitespace_bloat: support-chat, 2026-10-05"; a.Subject() != want {
		t.Errorf("subject = %s", a.Subject())
	}
	want := a.Sentence + "\n\n" +
		`Cost: 50,000,000,000,000 FLOPs; $0.0013 under request plan "std"; $0.1000 under FLOPs plan "tflops".` + "\n\n" +
		"Fix: " + a.Fix + "\n\nAlert 7, open since 2026-10-06T00:30:00Z."
	if got := a.Text(); got != want {
		t.Errorf("text:\n got %q\nwant %q", got, want)
	}
}
