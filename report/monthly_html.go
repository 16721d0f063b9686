package report

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// monthlyTemplate is parsed once, when the package loads, so that a broken
// template stops the program at start-up instead of failing a report. It
// is immutable configuration, not state.
var monthlyTemplate = template.Must(template.New("monthly").Funcs(template.FuncMap{
	"money": money, "smoney": signedMoney, "pct": pct, "spct": signedPct, "share": share,
	"count": count, "flops": flops, "flopsExact": flopsExact, "perTFLOP": perTFLOP,
	"ms": ms, "ratio": ratio, "plain": plain, "deltaColor": deltaColor, "budget": budgetText,
	"budgetColor": budgetColor, "flopsPrice": flopsPriceText,
}).Parse(monthlyHTML))

// Colours of the report, chosen to stay readable in print and for the
// common forms of colour blindness (the words carry the meaning too).
const (
	colorCheaper = "#1a7f37" // pays less under FLOPs billing
	colorDearer  = "#b42318" // pays more
	colorAtRisk  = "#b54708"
	colorText    = "#1f2933"
)

// htmlRow is a row as the HTML shows it.
type htmlRow struct {
	MonthlyRow
	IsTotal    bool
	PrefillPct int // prefill share, 0–100, for the split bar
	RequestBar int // bar widths, % of the largest bill of any group
	FLOPsBar   int
}

// htmlView is what the template reads.
type htmlView struct {
	M               Monthly
	KeyHeader       string    // "Workload", "Team", …
	GroupLabel      string    // "workload", "team", …
	Period          string    // "1–31 October 2026"
	Prev, PrevShort string    // "September 2026", "Sep"
	Rows            []htmlRow // by request-plan cost, largest first
	AllRows         []htmlRow // Rows and the total
	Preheader       string    // the inbox preview line
	LastFLOPs       *FLOPsPrice
	UnpricedRecords int64
	BloatMinPct     int
	BloatMinTokens  int64
}

// HTML renders the report as a self-contained e-mail body: one table-based
// column at most 680 px wide, inline styles only (no <style> block, which
// some clients strip), no script, no image and no external request; the
// only links are to LinkBase. The key chart (each group's bill under both
// plans) is an HTML table, which every client shows; the prefill/decode
// split is an inline SVG that clients may drop, with its figure in text
// beside it.
//
// It leads with the headline figures and the findings, then the chart and
// the tables, then the footnotes. Money is rounded to the cent half away
// from zero (billing.FormatMoney); the exact amount is in each cell's title,
// and FLOPs show an SI prefix with the exact integer in the title.
func (m Monthly) HTML() ([]byte, error) {
	start := m.Month.Time()
	prev := start.AddDate(0, -1, 0)
	v := htmlView{M: m, KeyHeader: keyHeader(m.GroupBy), GroupLabel: strings.ToLower(keyHeader(m.GroupBy)),
		Period: fmt.Sprintf("1–%d %s", m.To.Time().AddDate(0, 0, -1).Day(), start.Format("January 2006")),
		Prev:   prev.Format("January 2006"), PrevShort: prev.Format("Jan"),
		Preheader: strings.ReplaceAll(m.Summary(), "\n", " · "), BloatMinPct: BloatMinPct, BloatMinTokens: BloatMinTokens}
	if n := len(m.FLOPsPrices); n > 0 {
		v.LastFLOPs = &m.FLOPsPrices[n-1]
	}
	for _, u := range m.Unpriced {
		v.UnpricedRecords += u.Records
	}
	largest := decimal.Zero
	for _, r := range m.Rows {
		largest = decimal.Max(largest, r.RequestCost, r.FLOPsCost)
	}
	for _, r := range m.Rows {
		v.Rows = append(v.Rows, newHTMLRow(r, largest))
	}
	slices.SortStableFunc(v.Rows, func(a, b htmlRow) int { return b.RequestCost.Cmp(a.RequestCost) })
	total := newHTMLRow(m.Total, largest)
	total.IsTotal = true
	v.AllRows = append(slices.Clone(v.Rows), total)
	var buf bytes.Buffer
	if err := monthlyTemplate.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("report: render monthly HTML: %w", err)
	}
	return buf.Bytes(), nil
}

func newHTMLRow(r MonthlyRow, largest decimal.Decimal) htmlRow {
	h := htmlRow{MonthlyRow: r, RequestBar: barWidth(r.RequestCost, largest), FLOPsBar: barWidth(r.FLOPsCost, largest)}
	if r.PrefillShare != nil {
		h.PrefillPct = int(r.PrefillShare.Shift(2).Round(0).IntPart())
	}
	return h
}

// barWidth is d as a whole percentage of largest; at least 1 when d is
// positive, so that a small bill still shows.
func barWidth(d, largest decimal.Decimal) int {
	if !d.IsPositive() || !largest.IsPositive() {
		return 0
	}
	return max(int(d.Shift(2).DivRound(largest, 0).IntPart()), 1)
}

// keyHeader names the group column: "Workload", "Model" or the tag name.
func keyHeader(groupBy string) string {
	k := groupBy
	if tag, ok := strings.CutPrefix(groupBy, "tag:"); ok {
		k = tag
	}
	if k == "" {
		return ""
	}
	return strings.ToUpper(k[:1]) + k[1:]
}

// deltaColor colours a delta: green when FLOPs billing is cheaper.
func deltaColor(d decimal.Decimal) template.CSS {
	switch {
	case d.IsNegative():
		return template.CSS("color:" + colorCheaper)
	case d.IsPositive():
		return template.CSS("color:" + colorDearer)
	}
	return template.CSS("color:" + colorText)
}

// budgetColor colours a budget's used percentage by its state.
func budgetColor(b *BudgetStatus) template.CSS {
	switch {
	case b == nil:
		return template.CSS("color:" + colorText)
	case b.State == BudgetExceeded:
		return template.CSS("color:" + colorDearer + ";font-weight:bold")
	case b.State == BudgetAtRisk:
		return template.CSS("color:" + colorAtRisk + ";font-weight:bold")
	}
	return template.CSS("color:" + colorText)
}

// budgetText describes a budget in a sentence: "$6.20 of $5.00 (124.0%)
// under flops-tariff, forecast $6.50".
func budgetText(b BudgetStatus) string {
	amount := func(d decimal.Decimal) string {
		if b.Kind == BudgetTFLOPs {
			return billing.Thousands(plain(d)) + " TFLOPs"
		}
		return money(d)
	}
	s := fmt.Sprintf("%s of %s (%s)", amount(b.Spent), amount(b.Amount), pct(b.UsedPct))
	if b.Kind == BudgetMoney && b.Plan != "" {
		s += " under " + b.Plan
	}
	return s + ", forecast " + amount(b.Forecast)
}

// flopsPriceText describes a FLOPs-plan version: "$0.000015 prefill,
// $0.00002 decode per TFLOP".
func flopsPriceText(p FLOPsPrice) string {
	return fmt.Sprintf("$%s prefill, $%s decode per TFLOP (from %s)", plain(p.PrefillPerTFLOP), plain(p.DecodePerTFLOP), p.EffectiveFrom)
}
