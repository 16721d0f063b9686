package report

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
)

// The October fixture, worked by hand. Per rollup row (request-plan
// version v1 before the 16th, v2 from it; FLOPs-plan v1 before the 20th,
// v2 from it):
//
//	code-assist llama  10-05 v1/v1: request 0.01 + 1.5 + 0.25 + 0.2 = 1.96
//	                                FLOPs 210000 × 0.00002 + 7000 × 0.00002 = 4.34
//	                                bloat 150000 × 1.00/M = 0.15; 2.1e17 × 150000 / 2e6 = 1.575e16 FLOPs × 0.00002/T = 0.315
//	code-assist llama  10-25 v2/v2: request 0.005 + 0.8 + 0 + 0.064 = 0.869
//	                                FLOPs 123456.789012345678 × 0.000015 + 2800 × 0.00002 = 1.90785183518518517
//	                                bloat 33333 × 0.80/M = 0.0266664; 4115185148148518.4 → 4115185148148518 FLOPs × 0.000015/T = 0.06172777722222777
//	support-chat llama 10-10 v1/v1: request 0.1 + 0.4 + 0.05 + 8 = 8.55; FLOPs 1.12 + 5.6 = 6.72
//	                                bloat 1000 × 1.00/M = 0.001; 1.12e14 FLOPs × 0.00002/T = 0.00224
//	support-chat qwen  10-20 v2/v2: request 0.08 + 0.96 = 1.04; FLOPs 6000 × 0.000015 + 24000 × 0.00002 = 0.57
//	tiny-bot qwen      10-03 v1/v1: request 0.004 + 0.003 = 0.007; FLOPs 0.006 + 0.0015 = 0.0075
//	                                bloat 2000 × 0.20/M = 0.0004; 3e13 FLOPs × 0.00002/T = 0.0006
//	mystery (twice): the request plan has no price for it: unpriced, 12 records.
//
// September: code-assist 0.008 + 1.2 + 0.2 + 0.16 = 1.568 for 1.656e17
// FLOPs; support-chat 0.1 + 0.5 + 8 = 8.6 for 3.4e17; retired-bot 0.002 +
// 0.0006 = 0.0026 for 1.1e14; mystery unpriced and left out.
func TestBuildMonthly(t *testing.T) {
	t.Parallel()
	m, err := BuildMonthly(monthInput(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{{
		"key": "code-assist", "records": "150", "requests": "150", "input": "3000000", "cached": "500000", "output": "70000",
		"prefill": "333456789012345678", "decode": "9800000000000000", "total_flops": "343256789012345678", "prefill_share": "0.97145",
		"request_cost": "2.829", "flops_cost": "6.24785183518518517", "delta": "3.41885183518518517", "delta_pct": "120.8502",
		"break_even": "0.000008241643255301",
		"bloat":      "183333", "bloat_input": "2500000", "bloat_pct": "7.33", "bloat_flops": "19865185148148518",
		"bloat_request_cost": "0.1766664", "bloat_flops_cost": "0.37672777722222777",
		"budget":     "money flops-tariff 6.2/5/6.5 used 124 exceeded",
		"latency":    "150 2100 9800 4.67",
		"prev_flops": "165600000000000000", "flops_change": "107.2807", "prev_request_cost": "1.568", "request_cost_change": "80.4209",
	}, {
		"key": "support-chat", "records": "3000", "requests": "3000", "input": "900000", "cached": "100000", "output": "3600000",
		"prefill": "62000000000000000", "decode": "304000000000000000", "total_flops": "366000000000000000", "prefill_share": "0.169399",
		"request_cost": "9.59", "flops_cost": "7.29", "delta": "-2.3", "delta_pct": "-23.9833", "break_even": "0.00002620218579235",
		"bloat": "1000", "bloat_input": "200000", "bloat_pct": "0.5", "bloat_flops": "112000000000000",
		"bloat_request_cost": "0.001", "bloat_flops_cost": "0.00224",
		"budget":     "tflops  366000/400000/380000 used 91.5 at_risk",
		"latency":    "3000 420 1890 4.5",
		"prev_flops": "340000000000000000", "flops_change": "7.6471", "prev_request_cost": "8.6", "request_cost_change": "11.5116",
	}, {
		"key": "tiny-bot", "records": "10", "requests": "10", "input": "20000", "cached": "0", "output": "5000",
		"prefill": "300000000000000", "decode": "75000000000000", "total_flops": "375000000000000", "prefill_share": "0.8",
		"request_cost": "0.007", "flops_cost": "0.0075", "delta": "0.0005", "delta_pct": "7.1429", "break_even": "0.000018666666666667",
		"bloat": "2000", "bloat_input": "20000", "bloat_pct": "10", "bloat_flops": "30000000000000",
		"bloat_request_cost": "0.0004", "bloat_flops_cost": "0.0006",
		"budget":     "money list-price 0.007/1/0.0072 used 0.7 ok",
		"latency":    "nil", // its entry has no records
		"prev_flops": "0", "flops_change": "nil", "prev_request_cost": "0", "request_cost_change": "nil",
	}}
	if len(m.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(m.Rows), len(want), m.Rows)
	}
	for i, w := range want {
		checkFigures(t, m.Rows[i], w)
	}
	checkFigures(t, m.Total, map[string]string{
		"key": "TOTAL", "records": "3160", "requests": "3160", "input": "3920000", "cached": "600000", "output": "3675000",
		"prefill": "395756789012345678", "decode": "313875000000000000", "total_flops": "709631789012345678", "prefill_share": "0.557693",
		"request_cost": "12.426", "flops_cost": "13.54535183518518517", "delta": "1.11935183518518517", "delta_pct": "9.0081",
		"break_even": "0.000017510489513575",
		"bloat":      "186333", "bloat_input": "2720000", "bloat_pct": "6.85", "bloat_flops": "20007185148148518",
		"bloat_request_cost": "0.1780664", "bloat_flops_cost": "0.37956777722222777",
		"budget": "nil", "latency": "nil",
		// September's total includes retired-bot, which has no row now.
		"prev_flops": "505710000000000000", "flops_change": "40.3239", "prev_request_cost": "10.1706", "request_cost_change": "22.1757",
	})

	f := m.Findings
	keys := func(n int, key func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = key(i)
		}
		return out
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"gainers", keys(len(f.Gainers), func(i int) string { return f.Gainers[i].Key + " " + plain(f.Gainers[i].Delta) }), []string{"support-chat -2.3"}},
		{"losers", keys(len(f.Losers), func(i int) string { return f.Losers[i].Key + " " + plain(f.Losers[i].Delta) }),
			[]string{"code-assist 3.41885183518518517", "tiny-bot 0.0005"}},
		{"bloat offenders", keys(len(f.BloatOffenders), func(i int) string {
			b := f.BloatOffenders[i]
			return b.Key + " " + plain(b.BloatPct) + " " + plain(b.BloatRequestCost) + " " + plain(b.BloatFLOPsCost)
		}), []string{"code-assist 7.33 0.1766664 0.37672777722222777"}}, // tiny-bot: 10 % but 2,000 tokens
		{"budgets exceeded", keys(len(f.BudgetsExceeded), func(i int) string {
			return f.BudgetsExceeded[i].Key + " " + plain(*f.BudgetsExceeded[i].UsedPct)
		}), []string{"code-assist 124", "legacy-batch 120"}}, // most used first; legacy-batch has no usage
		{"budgets at risk", keys(len(f.BudgetsAtRisk), func(i int) string { return f.BudgetsAtRisk[i].Key }), []string{"support-chat"}},
		{"revenue-neutral", []string{plain(*f.RevenueNeutralPerTFLOP)}, []string{"0.000017510489513575"}},
		{"unpriced", keys(len(m.Unpriced), func(i int) string {
			u := m.Unpriced[i]
			return u.Model + " " + itoa(u.Records) + " " + u.Reason
		}), []string{
			"gpt-unknown 12 unknown model: register it (POST /v1/models) and its records are priced",
			`mystery 12 no price for this model (and no default) in request plan "list-price"`, // two days, one entry
		}},
		{"flops prices", keys(len(m.FLOPsPrices), func(i int) string {
			p := m.FLOPsPrices[i]
			return p.EffectiveFrom.String() + " " + plain(p.PrefillPerTFLOP) + " " + plain(p.DecodePerTFLOP)
		}), []string{"2026-01-01 0.00002 0.00002", "2026-10-20 0.000015 0.00002"}},
		{"head", []string{m.Title, m.Month.String(), m.From.String(), m.To.String(), m.GroupBy, m.RequestPlan, m.FLOPsPlan, m.GeneratedAt.Format(time.RFC3339)},
			[]string{"flopledger monthly report — October 2026", "2026-10-01", "2026-10-01", "2026-11-01", "workload", "list-price", "flops-tariff", "2026-11-01T05:00:00Z"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func checkFigures(t *testing.T, r MonthlyRow, want map[string]string) {
	t.Helper()
	got := figures(r)
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			t.Errorf("%s %s = %q, want %q", r.Key, k, got[k], want[k])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: the test checks %d figures of %d", r.Key, len(want), len(got))
	}
}

func TestBuildMonthlyCases(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		edit  func(*MonthInput)
		check func(*testing.T, Monthly)
	}{{
		name: "group by tag",
		edit: func(in *MonthInput) { in.GroupBy = "tag:team"; in.Budgets, in.Latency = nil, nil },
		check: func(t *testing.T, m Monthly) {
			var got []string
			for _, r := range m.Rows {
				got = append(got, r.Key+" "+plain(r.RequestCost)+" "+plain(r.FLOPsCost))
			}
			want := []string{"(untagged) 1.04 0.57", "cx 8.55 6.72", "platform 2.836 6.25535183518518517"}
			if !slices.Equal(got, want) {
				t.Errorf("rows %q, want %q", got, want)
			}
			if m.GroupBy != "tag:team" || !m.Total.RequestCost.Equal(dec("12.426")) {
				t.Errorf("group_by %q, total %s", m.GroupBy, m.Total.RequestCost)
			}
		},
	}, {
		name: "group by model",
		edit: func(in *MonthInput) { in.GroupBy = "model" },
		check: func(t *testing.T, m Monthly) {
			var got []string
			for _, r := range m.Rows {
				got = append(got, r.Key+" "+plain(r.RequestCost))
			}
			// llama: 1.96 + 0.869 + 8.55; qwen: 1.04 + 0.007
			if want := []string{"llama-70b 11.379", "qwen-7b 1.047"}; !slices.Equal(got, want) {
				t.Errorf("rows %q, want %q", got, want)
			}
		},
	}, {
		name: "empty month",
		edit: func(in *MonthInput) {
			in.Rollups, in.PrevRollups, in.Budgets, in.Latency, in.Unpriced = nil, nil, nil, nil, nil
		},
		check: func(t *testing.T, m Monthly) {
			f := m.Findings
			if len(m.Rows) != 0 || !m.Total.RequestCost.IsZero() || m.Total.DeltaPct != nil || f.RevenueNeutralPerTFLOP != nil ||
				len(f.Gainers)+len(f.Losers)+len(f.BloatOffenders)+len(f.BudgetsExceeded)+len(f.BudgetsAtRisk) != 0 ||
				m.Rows == nil || m.Unpriced == nil || f.Gainers == nil || m.Total.Change.FLOPsPct != nil {
				t.Errorf("empty month: %+v", m)
			}
		},
	}, {
		name: "days before the FLOPs plan's first version are unpriced",
		edit: func(in *MonthInput) {
			in.FLOPsPlan.Versions = in.FLOPsPlan.Versions[1:] // from 10-20 only
		},
		check: func(t *testing.T, m Monthly) {
			var got []string
			for _, r := range m.Rows {
				got = append(got, r.Key+" "+plain(r.FLOPsCost))
			}
			if want := []string{"code-assist 1.90785183518518517", "support-chat 0.57"}; !slices.Equal(got, want) {
				t.Errorf("rows %q, want %q", got, want)
			}
			var why []string
			for _, u := range m.Unpriced {
				why = append(why, u.Model+" "+itoa(u.Records)+" "+u.Reason)
			}
			want := []string{
				"gpt-unknown 12 unknown model: register it (POST /v1/models) and its records are priced",
				`llama-70b 1100 FLOPs plan "flops-tariff" has no version in force on some of these days`,
				`mystery 12 no price for this model (and no default) in request plan "list-price"`,
				`qwen-7b 10 FLOPs plan "flops-tariff" has no version in force on some of these days`,
			}
			slices.Sort(want) // by model, then reason
			if !slices.Equal(why, want) {
				t.Errorf("unpriced\n got %q\nwant %q", why, want)
			}
			if len(m.FLOPsPrices) != 1 || m.Total.Change.RequestCostPct != nil {
				t.Errorf("flops prices %+v; September has no FLOPs price, so no change: %+v", m.FLOPsPrices, m.Total.Change)
			}
		},
	}, {
		name: "bloat thresholds are inclusive",
		edit: func(in *MonthInput) {
			in.PrevRollups, in.Budgets, in.Latency = nil, nil, nil
			in.Rollups = []Rollup{
				rollup(oct(2), "exactly-5pct", "qwen-7b", with(usageRow(1, 400_000, 0, 1, "1000", "0"), bloat(10_000, 200_000))),
				rollup(oct(2), "just-under-5pct", "qwen-7b", with(usageRow(1, 400_000, 0, 1, "1000", "0"), bloat(10_000, 200_001))),
				rollup(oct(2), "just-under-volume", "qwen-7b", with(usageRow(1, 400_000, 0, 1, "1000", "0"), bloat(9_999, 10_000))),
				rollup(oct(2), "dearer-bloat", "llama-70b", with(usageRow(1, 400_000, 0, 1, "4000000000000000", "0"), bloat(20_000, 100_000))),
			}
		},
		check: func(t *testing.T, m Monthly) {
			var got []string
			for _, b := range m.Findings.BloatOffenders {
				got = append(got, b.Key+" "+plain(b.BloatFLOPsCost))
			}
			// dearer-bloat: 4e15 × 20000 / 400000 = 2e14 FLOPs × 0.00002/T;
			// exactly-5pct: 1000 × 10000 / 400000 = 25 FLOPs.
			if want := []string{"dearer-bloat 0.004", "exactly-5pct 0.0000000000000005"}; !slices.Equal(got, want) {
				t.Errorf("offenders %q, want %q", got, want)
			}
		},
	}, {
		name: "bloat FLOPs round half up per row",
		edit: func(in *MonthInput) {
			in.PrevRollups, in.Budgets, in.Latency = nil, nil, nil
			in.Rollups = []Rollup{ // 3 × 1 / 2 = 1.5 → 2, twice
				rollup(oct(2), "w", "qwen-7b", with(usageRow(1, 2, 0, 1, "3", "0"), bloat(1, 2))),
				rollup(oct(3), "w", "qwen-7b", with(usageRow(1, 2, 0, 1, "3", "0"), bloat(1, 2))),
			}
		},
		check: func(t *testing.T, m Monthly) {
			if m.Rows[0].BloatFLOPs != "4" {
				t.Errorf("bloat flops %s, want 4", m.Rows[0].BloatFLOPs)
			}
		},
	}, {
		name: "title, link and generated time are kept",
		edit: func(in *MonthInput) {
			in.Title = "Platform costs, October"
			in.LinkBase = "https://flopledger.example.com/"
		},
		check: func(t *testing.T, m Monthly) {
			if m.Title != "Platform costs, October" || m.LinkBase != "https://flopledger.example.com/" {
				t.Errorf("title %q, link %q", m.Title, m.LinkBase)
			}
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := monthInput(t)
			c.edit(&in)
			m, err := BuildMonthly(in)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, m)
		})
	}
}

func TestBuildMonthlyRejects(t *testing.T) {
	t.Parallel()
	in := monthInput(t)
	in.Month = oct(2)
	in.GroupBy = "team"
	in.RequestPlan, in.FLOPsPlan = in.FLOPsPlan, in.RequestPlan
	in.GeneratedAt = time.Time{}
	in.LinkBase = "javascript:alert(1)"
	in.Budgets["x"] = BudgetStatus{Kind: "euros", State: "fine", Amount: dec("-1")}
	in.Latency["y"] = LatencyStats{Records: 1, P50MS: 10, P99MS: 5}
	_, err := BuildMonthly(in)
	var ve estimator.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err %v, want a ValidationError", err)
	}
	var fields []string
	for _, p := range ve.Problems {
		fields = append(fields, p.Field)
	}
	want := []string{"month", "group_by", "request_plan", "flops_plan", "generated_at", "link_base",
		"budgets.x.kind", "budgets.x.state", "budgets.x.amount", "latency.y.p99_ms"}
	if !slices.Equal(fields, want) {
		t.Errorf("problems %q\nwant fields %q\n(%v)", fields, want, err)
	}
}

// Rows off the month are a caller's bug (a wrong range), reported in one
// problem per list rather than one per row.
func TestBuildMonthlyRejectsDaysOffTheMonth(t *testing.T) {
	t.Parallel()
	in := monthInput(t)
	in.Rollups = append(in.Rollups, rollup(billing.NewDate(2026, 9, 30), "w", "qwen-7b", nil), rollup(billing.NewDate(2026, 11, 1), "w", "qwen-7b", nil))
	in.PrevRollups = append(in.PrevRollups, rollup(oct(1), "w", "qwen-7b", nil))
	_, err := BuildMonthly(in)
	want := "invalid input: rollups: 2 rows are outside [2026-10-01, 2026-11-01), the first rollups[7] on 2026-09-30; " +
		"prev_rollups: 1 rows are outside [2026-09-01, 2026-10-01), the first prev_rollups[4] on 2026-10-01"
	if err == nil || err.Error() != want {
		t.Errorf("err\n %v\nwant\n %s", err, want)
	}
}

func TestBuildMonthlyPricingError(t *testing.T) {
	t.Parallel()
	in := monthInput(t)
	in.Rollups = append(in.Rollups, rollup(oct(9), "broken", "qwen-7b", usageRow(1, 5, 6, 1, "10", "0"))) // more cached than input
	_, err := BuildMonthly(in)
	var ve billing.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "report: price 2026-10-09 broken qwen-7b") {
		t.Fatalf("err %v, want the pricing error of the row", err)
	}
}
