package alert

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

// testNow evaluates the UTC day 2026-10-05; its baseline is 09-28..10-04.
var (
	testNow = time.Date(2026, 10, 6, 0, 30, 0, 0, time.UTC)
	testDay = DayWindow(testNow)
	dayD    = billing.NewDate(2026, 10, 5)
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// testPlans: gpt-4o at $2.50 per million input tokens, everything else at
// $0.20 (the default entry); FLOPs at $0.002 per prefill TFLOP and $0.006
// per decode TFLOP.
func testPlans() Plans {
	rp := billing.Plan{Name: "std", Kind: billing.KindRequest, Versions: []billing.Version{
		billing.NewRequestVersion(billing.NewDate(2026, 1, 1), map[string]billing.RequestPrices{
			"gpt-4o":             {InputPerMTok: dec("2.50"), OutputPerMTok: dec("10")},
			billing.DefaultModel: {InputPerMTok: dec("0.20"), OutputPerMTok: dec("0.20")},
		}),
	}}
	fp := billing.Plan{Name: "tflops", Kind: billing.KindFLOPs, Versions: []billing.Version{
		billing.NewFLOPsVersion(billing.NewDate(2026, 1, 1), dec("0.002"), dec("0.006")),
	}}
	return Plans{RequestName: "std", Request: &rp, FLOPsName: "tflops", FLOPs: &fp}
}

// row is a rollup factory: one gpt-4o row of support-chat on d, team=care,
// with every count zero unless f sets it.
func row(d billing.Date, f func(*report.Rollup)) report.Rollup {
	r := report.Rollup{Day: d, Workload: "support-chat", Model: "gpt-4o", Tags: map[string]string{"team": "care"}}
	if f != nil {
		f(&r)
	}
	return r
}

// baseDays returns one row per baseline day of testDay.
func baseDays(f func(*report.Rollup)) []report.Rollup {
	var out []report.Rollup
	for i := 1; i <= BaselineDays; i++ {
		out = append(out, row(billing.DateOf(testDay.Start.AddDate(0, 0, -i)), f))
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decString(d *decimal.Decimal) string {
	if d == nil {
		return "<nil>"
	}
	return d.String()
}
