package alert

import (
	"testing"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

// promptBase: every baseline day, 10 gpt-4o requests of 10,000 input
// tokens (team=care) and 10 llama requests of 10,000 (team=search): 140
// requests, 140,000 tokens, a mean of 1,000 tokens per request.
func promptBase() []report.Rollup {
	out := baseDays(func(r *report.Rollup) { r.Records, r.Requests, r.InputTokens = 10, 10, 10_000 })
	return append(out, baseDays(func(r *report.Rollup) {
		r.Model, r.Tags = "llama-3.1-8b", map[string]string{"team": "search"}
		r.Records, r.Requests, r.InputTokens = 10, 10, 10_000
	})...)
}

// promptDay: 40 gpt-4o requests of gptInput tokens and 10 llama requests of
// 20,000 tokens; gptInput 80,000 makes a mean of exactly 2,000.
func promptDay(gptInput int64) []report.Rollup {
	return []report.Rollup{
		row(dayD, func(r *report.Rollup) {
			r.Records, r.Requests, r.InputTokens = 40, 40, gptInput
			r.PrefillFLOPs = dec("300000000000000")
		}),
		row(dayD, func(r *report.Rollup) {
			r.Model, r.Tags = "llama-3.1-8b", map[string]string{"team": "search"}
			r.Records, r.Requests, r.InputTokens = 10, 10, 20_000
			r.PrefillFLOPs = dec("100000000000000")
		}),
	}
}

func TestPromptThresholdAndFloors(t *testing.T) {
	t.Parallel()
	// A baseline of one day with n requests of 1,000 tokens.
	smallBase := func(n int64) []report.Rollup {
		return []report.Rollup{row(billing.DateOf(testDay.Start.AddDate(0, 0, -3)), func(r *report.Rollup) {
			r.Records, r.Requests, r.InputTokens = n, n, n*1_000
		})}
	}
	// A day with n requests of 2,000 tokens (exactly 2×).
	smallDay := func(n int64) []report.Rollup {
		return []report.Rollup{row(dayD, func(r *report.Rollup) { r.Records, r.Requests, r.InputTokens = n, n, n*2_000 })}
	}
	cases := []struct {
		name      string
		day, base []report.Rollup
		want      bool
	}{
		{"exactly 2× fires", promptDay(80_000), promptBase(), true},
		{"one token short of 2× does not", promptDay(79_999), promptBase(), false},
		{"floors met exactly", smallDay(50), smallBase(100), true},
		{"49 requests on the day is below the floor", smallDay(49), smallBase(100), false},
		{"99 baseline requests is below the floor", smallDay(50), smallBase(99), false},
		{"a jump from 3 to 9 requests pages no one", smallDay(9), smallBase(3), false},
		{"no baseline", smallDay(500), nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, got := promptAlert("support-chat", testDay, tc.day, tc.base, DefaultThresholds().Prompt, testPlans())
			if got != tc.want {
				t.Errorf("fires = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPromptAlert checks every figure: the mean went from 1,000 to 2,000
// tokens per request over 50 requests, so 50,000 tokens are extra.
func TestPromptAlert(t *testing.T) {
	t.Parallel()
	a, ok := promptAlert("support-chat", testDay, promptDay(80_000), promptBase(), DefaultThresholds().Prompt, testPlans())
	if !ok {
		t.Fatal("did not fire")
	}
	if want := "Workload support-chat's prompts averaged 2,000.00 input tokens per request on 2026-10-05, " +
		"2× the mean of the 7 days before (1,000.00; the threshold is 2×)."; a.Sentence != want {
		t.Errorf("sentence:\n got %s\nwant %s", a.Sentence, want)
	}
	// gpt-4o grew from 10,000 a day to 80,000, llama from 10,000 to 20,000.
	wantEvidence := `{"window":{"start":"2026-10-05T00:00:00Z","end":"2026-10-06T00:00:00Z"},` +
		`"baseline":{"start":"2026-09-28T00:00:00Z","end":"2026-10-05T00:00:00Z"},"threshold":"2","observed":"2",` +
		`"prompt":{"requests":50,"input_tokens":100000,"mean_input_tokens":"2000","baseline_requests":140,` +
		`"baseline_input_tokens":140000,"baseline_mean_input_tokens":"1000","extra_input_tokens":50000,"growth":[` +
		`{"by":"model","value":"gpt-4o","window":80000,"baseline_daily_mean":10000,"growth":70000},` +
		`{"by":"model","value":"llama-3.1-8b","window":20000,"baseline_daily_mean":10000,"growth":10000},` +
		`{"by":"tag:team","value":"care","window":80000,"baseline_daily_mean":10000,"growth":70000},` +
		`{"by":"tag:team","value":"search","window":20000,"baseline_daily_mean":10000,"growth":10000}]}}`
	if got := mustJSON(t, a.Evidence); got != wantEvidence {
		t.Errorf("evidence:\n got %s\nwant %s", got, wantEvidence)
	}
	// FLOPs: 4·10^14 prefill × 50,000/100,000. Request plan: the 50,000
	// extra tokens shared 80:20, 40,000 × $2.50/M + 10,000 × $0.20/M.
	// FLOPs plan: 200 TFLOP × $0.002.
	c := a.Cost
	if c.FLOPs != "200000000000000" || decString(c.RequestCost) != "0.102" || decString(c.FLOPsCost) != "0.4" {
		t.Errorf("cost = %s FLOPs, request %s, flops %s; want 200000000000000, 0.102, 0.4",
			c.FLOPs, decString(c.RequestCost), decString(c.FLOPsCost))
	}
	if want := "Input tokens grew most for model gpt-4o (+70,000 tokens a day: 10,000 → 80,000), " +
		"model llama-3.1-8b (+10,000 tokens a day: 10,000 → 20,000), tag team=care (+70,000 tokens a day: 10,000 → 80,000), " +
		"tag team=search (+10,000 tokens a day: 10,000 → 20,000)."; a.Fix[:len(want)] != want {
		t.Errorf("fix:\n got %s\nwant %s…", a.Fix, want)
	}
}
