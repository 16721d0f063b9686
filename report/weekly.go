package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"math/big"
	"strings"
	"time"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
)

// PreviousWeek is the Monday that starts the last complete ISO week before
// now, in loc.
func PreviousWeek(now time.Time, loc *time.Location) billing.Date {
	t := now.In(loc)
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	back := (int(day.Weekday()) + 6) % 7 // days since this week's Monday
	return billing.DateOf(day.AddDate(0, 0, -back-7))
}

// MakeWeekly makes the weekly summary of the seven days from start (a
// Monday): the comparison of the two plans per group, as JSON, CSV, a short
// mail-safe HTML table and a text summary; stored like a monthly report.
func (m *Maker) MakeWeekly(ctx context.Context, start billing.Date, groupBy, kind string, now time.Time) (Stored, error) {
	end := billing.DateOf(start.Time().AddDate(0, 0, 7))
	if groupBy == "" {
		groupBy = "workload"
	}
	c, err := New(m.store, m.groupTags).Compare(ctx, Query{From: start, To: end, RequestPlan: m.reqPlan, FLOPsPlan: m.flopsPlan, GroupBy: groupBy})
	if err != nil {
		return Stored{}, err
	}
	body, err := json.Marshal(c)
	if err != nil {
		return Stored{}, fmt.Errorf("report: weekly: %w", err)
	}
	csvText, err := weeklyCSV(c)
	if err != nil {
		return Stored{}, err
	}
	var html bytes.Buffer
	title := fmt.Sprintf("flopledger weekly summary — %s to %s", start.Time().Format("2 January"), end.Time().AddDate(0, 0, -1).Format("2 January 2006"))
	if err := weeklyHTML.Execute(&html, weeklyView{Title: title, C: c, Generated: now.UTC().Format("2006-01-02 15:04 UTC")}); err != nil {
		return Stored{}, fmt.Errorf("report: weekly html: %w", err)
	}
	return m.store.SaveReport(ctx, Stored{Kind: kind, PeriodStart: start, PeriodEnd: end, GroupBy: groupBy, RequestPlan: c.RequestPlan,
		FLOPsPlan: c.FLOPsPlan, Body: body, CSV: csvText, HTML: html.String(), Summary: weeklySummary(title, c)})
}

func weeklyCSV(c Comparison) (string, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := strings.TrimPrefix(c.GroupBy, "tag:")
	rows := [][]string{{head, "requests", "input_tokens", "cached_input_tokens", "output_tokens", "prefill_flops", "decode_flops", "request_cost", "flops_cost", "delta", "delta_pct"}}
	for _, f := range append(append([]Figures{}, c.Groups...), c.Total.Figures) {
		pct := ""
		if f.DeltaPct != nil {
			pct = f.DeltaPct.String()
		}
		rows = append(rows, []string{csvSafe(f.Key), fmt.Sprint(f.Requests), fmt.Sprint(f.InputTokens), fmt.Sprint(f.CachedInputTokens), fmt.Sprint(f.OutputTokens),
			string(f.PrefillFLOPs), string(f.DecodeFLOPs), f.RequestCost.String(), f.FLOPsCost.String(), f.Delta.String(), pct})
	}
	if err := w.WriteAll(rows); err != nil {
		return "", fmt.Errorf("report: weekly csv: %w", err)
	}
	return b.String(), nil
}

// csvSafe keeps a spreadsheet from reading a name as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func weeklySummary(title string, c Comparison) string {
	t := c.Total
	lines := []string{title,
		fmt.Sprintf("%s under %s, %s under %s (%s under FLOPs billing).", money(t.RequestCost), c.RequestPlan, money(t.FLOPsCost), c.FLOPsPlan, signedMoney(t.Delta))}
	if t.RevenueNeutral != nil {
		lines = append(lines, fmt.Sprintf("Revenue-neutral FLOPs price: $%s per TFLOP.", t.RevenueNeutral.StringFixed(8)))
	}
	if len(c.Unpriced) > 0 {
		lines = append(lines, fmt.Sprintf("%d kinds of usage could not be priced (see the report).", len(c.Unpriced)))
	}
	return strings.Join(lines, "\n")
}

type weeklyView struct {
	Title     string
	C         Comparison
	Generated string
}

// weeklyHTML is a plain table with inline styles: it reads in a mail client.
var weeklyHTML = template.Must(template.New("weekly").Funcs(template.FuncMap{
	"money":  money,
	"smoney": signedMoney,
	"flops": func(p, d json.Number) string {
		sum, _ := new(big.Int).SetString(string(p), 10)
		dec, _ := new(big.Int).SetString(string(d), 10)
		return estimator.HumanFLOPs(sum.Add(sum, dec))
	},
}).Parse(`<!doctype html><html><body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;color:#111827;">
<table role="presentation" width="100%" style="max-width:680px;border-collapse:collapse;">
<tr><td style="font-size:20px;font-weight:bold;padding-bottom:4px;">{{.Title}}</td></tr>
<tr><td style="font-size:13px;color:#4b5563;padding-bottom:12px;">{{.C.RequestPlan}} vs {{.C.FLOPsPlan}} · by {{.C.GroupBy}} · generated {{.Generated}}</td></tr>
<tr><td><table width="100%" style="border-collapse:collapse;font-size:13px;">
<tr style="background:#f3f4f6;"><th align="left" style="padding:6px;">{{.C.GroupBy}}</th><th align="right" style="padding:6px;">FLOPs</th><th align="right" style="padding:6px;">Request plan</th><th align="right" style="padding:6px;">FLOPs plan</th><th align="right" style="padding:6px;">Delta</th></tr>
{{range .C.Groups}}<tr><td style="padding:6px;border-top:1px solid #e5e7eb;">{{.Key}}</td><td align="right" style="padding:6px;border-top:1px solid #e5e7eb;">{{flops .PrefillFLOPs .DecodeFLOPs}}</td><td align="right" style="padding:6px;border-top:1px solid #e5e7eb;">{{money .RequestCost}}</td><td align="right" style="padding:6px;border-top:1px solid #e5e7eb;">{{money .FLOPsCost}}</td><td align="right" style="padding:6px;border-top:1px solid #e5e7eb;">{{smoney .Delta}}</td></tr>
{{end}}<tr style="font-weight:bold;"><td style="padding:6px;border-top:2px solid #111827;">TOTAL</td><td align="right" style="padding:6px;border-top:2px solid #111827;">{{flops .C.Total.PrefillFLOPs .C.Total.DecodeFLOPs}}</td><td align="right" style="padding:6px;border-top:2px solid #111827;">{{money .C.Total.RequestCost}}</td><td align="right" style="padding:6px;border-top:2px solid #111827;">{{money .C.Total.FLOPsCost}}</td><td align="right" style="padding:6px;border-top:2px solid #111827;">{{smoney .C.Total.Delta}}</td></tr>
</table></td></tr>
</table></body></html>`))
