package alert

import (
	"errors"
	"testing"
	"time"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/report"
)

func TestDayWindow(t *testing.T) {
	t.Parallel()
	for _, now := range []time.Time{
		time.Date(2026, 10, 6, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 6, 23, 59, 59, 0, time.UTC),
		time.Date(2026, 10, 6, 1, 0, 0, 0, time.FixedZone("CEST", 2*3600)), // 2026-10-05T23:00Z
	} {
		w := DayWindow(now)
		want := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
		if now.UTC().Day() == 5 {
			want = want.AddDate(0, 0, -1)
		}
		if !w.Start.Equal(want) || !w.End.Equal(want.AddDate(0, 0, 1)) {
			t.Errorf("DayWindow(%s) = %v", now, w)
		}
	}
	if b := Baseline(testDay); !b.Start.Equal(time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC)) || !b.End.Equal(testDay.Start) {
		t.Errorf("Baseline = %v", b)
	}
}

// TestAssess runs every data kind over two workloads, one of them tiny,
// and ignores rows outside the day and its baseline.
func TestAssess(t *testing.T) {
	t.Parallel()
	rows := append(promptDay(80_000), promptBase()...)
	rows = append(rows,
		row(billing.NewDate(2026, 10, 6), func(r *report.Rollup) { r.Records, r.Requests, r.InputTokens = 1000, 1000, 10_000_000 }), // today: not whole yet
		row(billing.NewDate(2026, 9, 27), func(r *report.Rollup) { r.Records, r.Requests, r.InputTokens = 1000, 1000, 1 }),          // before the baseline
	)
	// A tiny workload: from 3 requests to 9, ten times the tokens each.
	tiny := func(d billing.Date, n, input int64) report.Rollup {
		return row(d, func(r *report.Rollup) { r.Workload, r.Records, r.Requests, r.InputTokens = "tiny", n, n, input })
	}
	rows = append(rows, tiny(dayD, 9, 90_000), tiny(billing.NewDate(2026, 10, 1), 3, 3_000))

	ev, err := Assess(testNow, rows, nil, Config{}, testPlans())
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Fired) != 1 || ev.Fired[0].Workload != "support-chat" || ev.Fired[0].Kind != PromptInflation {
		t.Fatalf("fired %+v, want support-chat's prompt_inflation only", ev.Fired)
	}
	if p := ev.Fired[0].Evidence.Prompt; p.Requests != 50 || p.BaselineRequests != 140 {
		t.Errorf("rows outside the window were counted: %+v", p)
	}

	// A per-workload override lowers tiny's floors: now it fires.
	lenient := DefaultThresholds()
	lenient.Prompt.MinRequests, lenient.Prompt.MinBaselineRequests = 1, 1
	ev, err = Assess(testNow, rows, nil, Config{PerWorkload: map[string]Thresholds{"tiny": lenient}}, testPlans())
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Fired) != 2 || ev.Fired[1].Workload != "tiny" {
		t.Fatalf("fired %+v, want support-chat and tiny", ev.Fired)
	}
}

func TestAssessRejectsBadBudgets(t *testing.T) {
	t.Parallel()
	_, err := Assess(testNow, nil, []BudgetStatus{{Workload: "", Kind: "yen", Amount: dec("1")}}, Config{}, Plans{})
	var ve estimator.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Fatalf("err = %v, want two problems", err)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	bad := DefaultThresholds()
	bad.Bloat.Share = dec("0")
	bad.FLOPs.MinRequests = -1
	err := Config{PerWorkload: map[string]Thresholds{"w": bad}}.Validate()
	var ve estimator.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 || ve.Problems[0].Field != "per_workload[w].bloat.share" {
		t.Fatalf("err = %v", err)
	}
	if err := (Config{}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestGrouped(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"0": "0", "999": "999", "1000": "1,000", "-1234567.50": "-1,234,567.50", "100000": "100,000"} {
		if got := billing.Thousands(in); got != want {
			t.Errorf("billing.Thousands(%s) = %s, want %s", in, got, want)
		}
	}
}
