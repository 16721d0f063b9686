package web

import (
	"github.com/flopledger/flopledger/billing"
	"html/template"
	"math"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/report"
)

// monthNav is the month picker: a GET form with the month and links to the
// months before and after, keeping the page's other query parameters.
type monthNav struct {
	Action     string
	Value      string // "2026-10"
	Label      string // "October 2026"
	Prev, Next string
	PrevLabel  string
	NextLabel  string
	Hidden     []hiddenField
	Error      string
}

type hiddenField struct{ Name, Value string }

// monthParam reads ?month=YYYY-MM, the current UTC month by default. A bad
// value gives the current month and the problem, for the page to show.
func (d *dashboard) monthParam(c *gin.Context) (budget.Month, string) {
	now := budget.MonthOf(d.s.now())
	v := c.Query("month")
	if v == "" {
		return now, ""
	}
	m, err := budget.ParseMonth(v)
	if err != nil {
		return now, "month: " + err.Error()
	}
	return m, ""
}

// monthNavFor builds the picker of month m; keep names the query
// parameters the picker and its links carry over.
func monthNavFor(c *gin.Context, m budget.Month, problem string, keep ...string) monthNav {
	t := m.Start.Time()
	prev, next := t.AddDate(0, -1, 0), t.AddDate(0, 1, 0)
	link := func(month string) string {
		q := url.Values{}
		for _, k := range keep {
			if v := c.Query(k); v != "" {
				q.Set(k, v)
			}
		}
		q.Set("month", month)
		return c.Request.URL.Path + "?" + q.Encode()
	}
	n := monthNav{
		Action: c.Request.URL.Path, Value: m.String(), Label: t.Format("January 2006"),
		Prev: link(prev.Format("2006-01")), Next: link(next.Format("2006-01")),
		PrevLabel: prev.Format("Jan 2006"), NextLabel: next.Format("Jan 2006"), Error: problem,
	}
	for _, k := range keep {
		if v := c.Query(k); v != "" {
			n.Hidden = append(n.Hidden, hiddenField{k, v})
		}
	}
	return n
}

// planParams are the plans a page compares: ?request_plan= and
// ?flops_plan=, else the configured defaults.
func (d *dashboard) planParams(c *gin.Context) (string, string) {
	rp, fp := c.Query("request_plan"), c.Query("flops_plan")
	if rp == "" {
		rp = d.s.defaultRequestPlan
	}
	if fp == "" {
		fp = d.s.defaultFLOPsPlan
	}
	return rp, fp
}

// dayRow is one day of a workload's or of all usage, for the charts'
// tables.
type dayRow struct {
	report.DayPoint
	Label string
	FLOPs decimal.Decimal
	// BloatPct is bloat tokens per 100 bloat-known input tokens; nil when
	// no record of the day told its bloat.
	BloatPct *decimal.Decimal
}

func dayRows(points []report.DayPoint) []dayRow {
	rows := make([]dayRow, len(points))
	for i, p := range points {
		rows[i] = dayRow{DayPoint: p, Label: p.Day.Time().Format("Jan 2"), FLOPs: p.PrefillFLOPs.Add(p.DecodeFLOPs)}
		if p.BloatInputTokens > 0 {
			pct := decimal.NewFromInt(p.BloatTokens).Mul(decimal.NewFromInt(100)).DivRound(decimal.NewFromInt(p.BloatInputTokens), 4)
			rows[i].BloatPct = &pct
		}
	}
	return rows
}

// dayLabels are the x labels of a month's daily chart: the day of the month.
func dayLabels(rows []dayRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strconv.Itoa(r.Day.Time().Day())
	}
	return out
}

// flopsChart is the daily FLOPs of a month, prefill and decode stacked.
func flopsChart(id, what string, month budget.Month, rows []dayRow) template.HTML {
	pre := chartSeries{Name: "Prefill", Class: "prefill"}
	dec := chartSeries{Name: "Decode", Class: "decode"}
	var totalPre, totalDec decimal.Decimal
	for _, r := range rows {
		pre.Values = append(pre.Values, floatOf(r.PrefillFLOPs))
		dec.Values = append(dec.Values, floatOf(r.DecodeFLOPs))
		pre.Texts = append(pre.Texts, exactFLOPs(r.PrefillFLOPs))
		dec.Texts = append(dec.Texts, exactFLOPs(r.DecodeFLOPs))
		totalPre, totalDec = totalPre.Add(r.PrefillFLOPs), totalDec.Add(r.DecodeFLOPs)
	}
	desc := "Stacked bars, one per day of " + month.Start.Time().Format("January 2006") + ": prefill " + flopsText(totalPre) +
		" and decode " + flopsText(totalDec) + " in the month."
	return chart{ID: id, Title: "Daily FLOPs of " + what + ", prefill and decode", Desc: desc,
		XLabel: "Day of " + month.Start.Time().Format("January 2006") + " (UTC)", YLabel: "FLOPs",
		X: dayLabels(rows), XEvery: 2, Series: []chartSeries{pre, dec}, Kind: chartStacked, YTick: flopsTick,
		Empty: "No usage in this month"}.SVG()
}

// costChart is the daily cost of a month under both plans.
func costChart(id, what string, month budget.Month, rows []dayRow, requestPlan, flopsPlan string) template.HTML {
	rc := chartSeries{Name: "Request plan (" + requestPlan + ")", Class: "request"}
	fc := chartSeries{Name: "FLOPs plan (" + flopsPlan + ")", Class: "flops"}
	var tr, tf decimal.Decimal
	for _, r := range rows {
		rc.Values = append(rc.Values, floatOf(r.RequestCost))
		fc.Values = append(fc.Values, floatOf(r.FLOPsCost))
		rc.Texts = append(rc.Texts, formatMoney(r.RequestCost))
		fc.Texts = append(fc.Texts, formatMoney(r.FLOPsCost))
		tr, tf = tr.Add(r.RequestCost), tf.Add(r.FLOPsCost)
	}
	desc := "Two lines, one point per day of " + month.Start.Time().Format("January 2006") + ": " + formatMoney(tr) +
		" under the request plan and " + formatMoney(tf) + " under the FLOPs plan in the month."
	return chart{ID: id, Title: "Daily cost of " + what + " under each plan", Desc: desc,
		XLabel: "Day of " + month.Start.Time().Format("January 2006") + " (UTC)", YLabel: "Cost (USD)",
		X: dayLabels(rows), XEvery: 2, Series: []chartSeries{rc, fc}, Kind: chartLines, YTick: moneyTick,
		Empty: "No priced usage in this month"}.SVG()
}

// bloatChart is the daily share of whitespace bloat in the input tokens
// whose bloat is known; days where no record told it are gaps.
func bloatChart(id string, month budget.Month, rows []dayRow) template.HTML {
	s := chartSeries{Name: "Bloat share of input tokens", Class: "bloat"}
	for _, r := range rows {
		if r.BloatPct == nil {
			s.Values = append(s.Values, math.NaN())
			s.Texts = append(s.Texts, "unknown")
			continue
		}
		s.Values = append(s.Values, floatOf(*r.BloatPct))
		s.Texts = append(s.Texts, formatPct(*r.BloatPct)+" ("+formatCount(r.BloatTokens)+" of "+formatCount(r.BloatInputTokens)+" tokens)")
	}
	return chart{ID: id, Title: "Daily whitespace bloat", Desc: "Bars, one per day: redundant whitespace tokens as a share of the input tokens whose bloat is known; days without such records have no bar.",
		XLabel: "Day of " + month.Start.Time().Format("January 2006") + " (UTC)", YLabel: "Bloat (% of input tokens)",
		X: dayLabels(rows), XEvery: 2, Series: []chartSeries{s}, Kind: chartBars, YTick: pctTick,
		Empty: "No bloat measured in this month"}.SVG()
}

func exactFLOPs(d decimal.Decimal) string {
	n := toBig(d)
	return flopsText(n) + " (" + billing.Thousands(n.String()) + " FLOPs)"
}

// chartEnd is where a month's daily charts stop: the month's end, or for
// the month in progress the end of today, so that days still to come are
// not drawn as days of zero spending.
func (d *dashboard) chartEnd(end billing.Date) billing.Date {
	tomorrow := billing.DateOf(d.s.now().AddDate(0, 0, 1))
	if tomorrow.Before(end) {
		return tomorrow
	}
	return end
}
