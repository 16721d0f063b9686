package report

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

func TestMonthlyCSV(t *testing.T) {
	t.Parallel()
	head := "requests,input_tokens,cached_input_tokens,output_tokens,prefill_flops,decode_flops,request_cost,flops_cost,delta,delta_pct,budget,budget_used_pct,bloat_tokens," +
		"records,total_flops,prefill_share,break_even_price_per_tflop,budget_kind,budget_plan,budget_spent,budget_forecast,budget_state," +
		"bloat_input_tokens,bloat_pct,bloat_flops,bloat_request_cost,bloat_flops_cost,latency_records,latency_p50_ms,latency_p99_ms,latency_p99_over_p50," +
		"prev_flops,flops_change_pct,prev_request_cost,request_cost_change_pct"
	for _, c := range []struct {
		name string
		edit func(*MonthInput)
		want []string // the lines, header first
	}{{
		name: "by workload",
		edit: func(*MonthInput) {},
		want: []string{
			"workload," + head,
			"code-assist,150,3000000,500000,70000,333456789012345678,9800000000000000,2.829,6.24785183518518517,3.41885183518518517,120.8502,5,124.00,183333," +
				"150,343256789012345678,0.971450,0.000008241643255301,money,flops-tariff,6.2,6.5,exceeded," +
				"2500000,7.33,19865185148148518,0.1766664,0.37672777722222777,150,2100,9800,4.67,165600000000000000,107.2807,1.568,80.4209",
			"support-chat,3000,900000,100000,3600000,62000000000000000,304000000000000000,9.59,7.29,-2.3,-23.9833,400000,91.50,1000," +
				"3000,366000000000000000,0.169399,0.000026202185792350,tflops,,366000,380000,at_risk," +
				"200000,0.50,112000000000000,0.001,0.00224,3000,420,1890,4.5,340000000000000000,7.6471,8.6,11.5116",
			"tiny-bot,10,20000,0,5000,300000000000000,75000000000000,0.007,0.0075,0.0005,7.1429,1,0.70,2000," +
				"10,375000000000000,0.800000,0.000018666666666667,money,list-price,0.007,0.0072,ok," +
				"20000,10.00,30000000000000,0.0004,0.0006,,,,,0,,0,",
			"TOTAL,3160,3920000,600000,3675000,395756789012345678,313875000000000000,12.426,13.54535183518518517,1.11935183518518517,9.0081,,,186333," +
				"3160,709631789012345678,0.557693,0.000017510489513575,,,,,," +
				"2720000,6.85,20007185148148518,0.1780664,0.37956777722222777,,,,,505710000000000000,40.3239,10.1706,22.1757",
		},
	}, {
		name: "by tag: the first column is the tag's name",
		edit: func(in *MonthInput) {
			in.GroupBy = "tag:team"
			in.Budgets, in.Latency, in.PrevRollups = nil, nil, nil
			in.Rollups = in.Rollups[4:6] // support-chat: cx, and untagged
		},
		want: []string{
			"team," + head,
			"(untagged),2000,400000,0,1600000,6000000000000000,24000000000000000,1.04,0.57,-0.47,-45.1923,,,0," +
				"2000,30000000000000000,0.200000,0.000034666666666667,,,,,,0,,0,0,0,,,,,0,,0,",
			"cx,1000,500000,100000,2000000,56000000000000000,280000000000000000,8.55,6.72,-1.83,-21.4035,,,1000," +
				"1000,336000000000000000,0.166667,0.000025446428571429,,,,,,200000,0.50,112000000000000,0.001,0.00224,,,,,0,,0,",
			"TOTAL,3000,900000,100000,3600000,62000000000000000,304000000000000000,9.59,7.29,-2.3,-23.9833,,,1000," +
				"3000,366000000000000000,0.169399,0.000026202185792350,,,,,,200000,0.50,112000000000000,0.001,0.00224,,,,,0,,0,",
		},
	}, {
		name: "a key that a spreadsheet would run is defused",
		edit: func(in *MonthInput) {
			in.Budgets, in.Latency, in.PrevRollups = nil, nil, nil
			in.Rollups = []Rollup{rollup(oct(2), `=HYPERLINK("http://x","y")`, "qwen-7b", usageRow(1, 1_000_000, 0, 0, "1000000000000", "0"))}
		},
		want: []string{
			"workload," + head,
			`"'=HYPERLINK(""http://x"",""y"")",1,1000000,0,0,1000000000000,0,0.2,0.00002,-0.19998,-99.9900,,,0,` +
				"1,1000000000000,1.000000,0.200000000000000000,,,,,,0,,0,0,0,,,,,0,,0,",
			"TOTAL,1,1000000,0,0,1000000000000,0,0.2,0.00002,-0.19998,-99.9900,,,0," +
				"1,1000000000000,1.000000,0.200000000000000000,,,,,,0,,0,0,0,,,,,0,,0,",
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
			b, err := m.CSV()
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			if !slices.Equal(got, c.want) {
				t.Errorf("CSV\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			// It is valid CSV: every line has the header's number of fields.
			recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
			if err != nil || recs[len(recs)-1][0] != "TOTAL" {
				t.Errorf("read back: %v, last line %q", err, recs[len(recs)-1])
			}
		})
	}
}
