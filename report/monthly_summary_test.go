package report

import (
	"strings"
	"testing"
)

func TestMonthlySummary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(*MonthInput)
		want string
	}{{
		name: "every finding",
		edit: func(*MonthInput) {},
		want: `flopledger monthly report — October 2026 (by workload)
Request plan list-price: $12.43 · FLOPs plan flops-tariff: $13.55 · FLOPs billing +$1.12 (+9.0%) · 24 records could not be priced and are left out
Revenue-neutral FLOPs price: $0.00001751 per TFLOP
Budgets exceeded: code-assist (124.0%), legacy-batch (120.0%); at risk: support-chat (91.5%)
Under FLOPs billing, dearer: code-assist +$3.42 (+120.9%); cheaper: support-chat -$2.30 (-24.0%)
Prompt bloat: 7.3% of code-assist's prompt tokens are redundant whitespace ($0.18 under the request plan, $0.38 under the FLOPs plan)`,
	}, {
		name: "a quiet month by team",
		edit: func(in *MonthInput) {
			in.GroupBy = "tag:team"
			in.Budgets, in.Unpriced = nil, nil
			in.Rollups = in.Rollups[4:5] // cx only
		},
		want: `flopledger monthly report — October 2026 (by team)
Request plan list-price: $8.55 · FLOPs plan flops-tariff: $6.72 · FLOPs billing -$1.83 (-21.4%)
Revenue-neutral FLOPs price: $0.00002545 per TFLOP
Under FLOPs billing, cheaper: cx -$1.83 (-21.4%)`,
	}, {
		name: "no usage",
		edit: func(in *MonthInput) { in.Rollups, in.Budgets, in.Unpriced = nil, nil, nil },
		want: `flopledger monthly report — October 2026 (by workload)
Request plan list-price: $0.00 · FLOPs plan flops-tariff: $0.00 · FLOPs billing $0.00`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := monthInput(t)
			c.edit(&in)
			m, err := BuildMonthly(in)
			if err != nil {
				t.Fatal(err)
			}
			got := m.Summary()
			if got != c.want {
				t.Errorf("summary\n got:\n%s\nwant:\n%s", got, c.want)
			}
			if n := strings.Count(got, "\n") + 1; n > 6 {
				t.Errorf("%d lines; a summary has at most 6", n)
			}
		})
	}
}
