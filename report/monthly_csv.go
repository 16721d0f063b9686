package report

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// csvHeader is the CSV's header after its first column. The first fourteen
// columns are a contract (readers pick them by position); later columns may
// be added at the end, never inserted.
var csvHeader = []string{
	"requests", "input_tokens", "cached_input_tokens", "output_tokens", "prefill_flops", "decode_flops",
	"request_cost", "flops_cost", "delta", "delta_pct", "budget", "budget_used_pct", "bloat_tokens",
	// more, in the order of the JSON
	"records", "total_flops", "prefill_share", "break_even_price_per_tflop",
	"budget_kind", "budget_plan", "budget_spent", "budget_forecast", "budget_state",
	"bloat_input_tokens", "bloat_pct", "bloat_flops", "bloat_request_cost", "bloat_flops_cost",
	"latency_records", "latency_p50_ms", "latency_p99_ms", "latency_p99_over_p50",
	"prev_flops", "flops_change_pct", "prev_request_cost", "request_cost_change_pct",
}

// CSV writes one line per group, in key order, and a last line whose key is
// TOTAL. The first column is named after the grouping: "workload", "model",
// or the tag's name for "tag:NAME" (e.g. "team").
//
// Every figure is exact, as in the JSON: money unrounded in plain notation
// ("6.24785183518518517"), so that a spreadsheet's sum of the rows equals
// the TOTAL line; rounding is the reader's to choose. Rounded figures
// (percentages, shares, break-even prices) keep their fixed places. An
// undefined figure (a percentage of zero, no budget, no latency) is an empty
// field. Budget amounts are in the budget's unit (budget_kind: dollars for
// "money", TFLOPs for "tflops").
//
// A key starting with '=', '+', '-', '@', a tab or a carriage return is
// written with a leading apostrophe, so that a spreadsheet does not run it
// as a formula (keys come from clients' usage records).
func (m Monthly) CSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(append([]string{m.keyColumn()}, csvHeader...)) // a bytes.Buffer does not fail; Flush reports the rest
	for _, r := range m.Rows {
		_ = w.Write(csvRow(safeKey(r.Key), r))
	}
	_ = w.Write(csvRow("TOTAL", m.Total))
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// keyColumn names the first column after the grouping.
func (m Monthly) keyColumn() string {
	if tag, ok := strings.CutPrefix(m.GroupBy, "tag:"); ok {
		return tag
	}
	return m.GroupBy
}

func csvRow(key string, r MonthlyRow) []string {
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	fixed := func(d *decimal.Decimal) string { // rounded figures keep their places
		if d == nil {
			return ""
		}
		return d.StringFixed(max(-d.Exponent(), 0))
	}
	var b BudgetStatus
	if r.Budget != nil {
		b = *r.Budget
	}
	opt := func(s string) string { // budget fields, empty without a budget
		if r.Budget == nil {
			return ""
		}
		return s
	}
	var l Latency
	if r.Latency != nil {
		l = *r.Latency
	}
	lat := func(s string) string {
		if r.Latency == nil {
			return ""
		}
		return s
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	ratio := ""
	if l.P99OverP50 != nil {
		ratio = f(*l.P99OverP50)
	}
	return []string{
		key, i(r.Requests), i(r.InputTokens), i(r.CachedInputTokens), i(r.OutputTokens),
		r.PrefillFLOPs.String(), r.DecodeFLOPs.String(),
		plain(r.RequestCost), plain(r.FLOPsCost), plain(r.Delta), fixed(r.DeltaPct),
		opt(plain(b.Amount)), fixed(b.UsedPct), i(r.BloatTokens),
		i(r.Records), r.TotalFLOPs.String(), fixed(r.PrefillShare), fixed(r.BreakEven),
		opt(b.Kind), opt(b.Plan), opt(plain(b.Spent)), opt(plain(b.Forecast)), opt(b.State),
		i(r.BloatInputTokens), fixed(r.BloatPct), r.BloatFLOPs.String(), plain(r.BloatRequestCost), plain(r.BloatFLOPsCost),
		lat(i(l.Records)), lat(f(l.P50MS)), lat(f(l.P99MS)), ratio,
		r.Change.PrevFLOPs.String(), fixed(r.Change.FLOPsPct), plain(r.Change.PrevRequestCost), fixed(r.Change.RequestCostPct),
	}
}

// safeKey defuses a key that a spreadsheet would read as a formula.
func safeKey(k string) string {
	if k != "" && strings.ContainsRune("=+-@\t\r", rune(k[0])) {
		return "'" + k
	}
	return k
}
