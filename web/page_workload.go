package web

import (
	"context"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/report"
)

// workloadView is the page of one workload's month.
type workloadView struct {
	page
	Name                   string
	Month                  monthNav
	RequestPlan, FLOPsPlan string
	MissingPlans           []string
	Sum                    daySum
	Days                   []dayRow
	FLOPsChart             template.HTML
	CostChart              template.HTML
	BloatChart             template.HTML
	PromptChart            template.HTML
	Prompts                []promptRow
	Latency                *report.LatencyStats
	Budgets                []budgetRow
	Alerts                 []alert.Alert
	AlertsURL              string
}

// daySum adds up a workload's days.
type daySum struct {
	Records, Requests, InputTokens, OutputTokens int64
	BloatTokens, BloatInputTokens, Unpriced      int64
	PrefillFLOPs, DecodeFLOPs, FLOPs             decimal.Decimal
	RequestCost, FLOPsCost, Delta                decimal.Decimal
	DeltaPct, PrefillPct, DecodePct, BloatPct    *decimal.Decimal
}

func sumDays(rows []dayRow) daySum {
	var s daySum
	for _, r := range rows {
		s.Records += r.Records
		s.Requests += r.Requests
		s.InputTokens += r.InputTokens
		s.OutputTokens += r.OutputTokens
		s.BloatTokens += r.BloatTokens
		s.BloatInputTokens += r.BloatInputTokens
		s.Unpriced += r.Unpriced
		s.PrefillFLOPs = s.PrefillFLOPs.Add(r.PrefillFLOPs)
		s.DecodeFLOPs = s.DecodeFLOPs.Add(r.DecodeFLOPs)
		s.RequestCost = s.RequestCost.Add(r.RequestCost)
		s.FLOPsCost = s.FLOPsCost.Add(r.FLOPsCost)
	}
	s.FLOPs = s.PrefillFLOPs.Add(s.DecodeFLOPs)
	s.Delta = s.FLOPsCost.Sub(s.RequestCost)
	hundred := decimal.NewFromInt(100)
	if !s.RequestCost.IsZero() {
		p := s.Delta.Mul(hundred).DivRound(s.RequestCost, billing.DeltaPctPlaces)
		s.DeltaPct = &p
	}
	if s.FLOPs.IsPositive() {
		pre := s.PrefillFLOPs.Mul(hundred).DivRound(s.FLOPs, 4)
		dec := hundred.Sub(pre)
		s.PrefillPct, s.DecodePct = &pre, &dec
	}
	if s.BloatInputTokens > 0 {
		b := decimal.NewFromInt(s.BloatTokens).Mul(hundred).DivRound(decimal.NewFromInt(s.BloatInputTokens), 4)
		s.BloatPct = &b
	}
	return s
}

// promptRow is one bucket of the prompt-size histogram: mean prompts per
// request of [From, To] tokens.
type promptRow struct {
	From, To          int64
	Records, Requests int64
	Share             decimal.Decimal // of the month's requests, in %
}

// budgetRow is a budget's status with its figures in its unit.
type budgetRow struct {
	budget.Status
	AmountText, SpentText, ForecastText string
	Bar                                 template.HTML
}

func (d *dashboard) workload(c *gin.Context) {
	ctx := c.Request.Context()
	name := strings.TrimPrefix(c.Param("name"), "/")
	if name == "" {
		c.Redirect(http.StatusSeeOther, "/")
		return
	}
	m, problem := d.monthParam(c)
	rp, fp := d.planParams(c)
	v := workloadView{page: d.pageFor(c, name, "/"), Name: name, RequestPlan: rp, FLOPsPlan: fp,
		AlertsURL: "/alerts?workload=" + url.QueryEscape(name)}
	v.Title = "Workload " + name
	v.Month = monthNavFor(c, m, problem, "request_plan", "flops_plan")
	status := http.StatusOK
	if problem != "" {
		status = http.StatusUnprocessableEntity
		v.Errors = append(v.Errors, problem)
	}
	start, end := m.Range()
	var days []report.DayPoint
	var prompts []report.PromptBucket
	var latency map[string]report.LatencyStats
	var budgets []budget.Status
	var alerts []alert.Alert
	var plans []billing.Plan
	err := gather(ctx,
		func(ctx context.Context) (err error) {
			days, err = d.s.reports.Daily(ctx, report.DailyQuery{From: start, To: d.chartEnd(end), Workload: name, RequestPlan: rp, FLOPsPlan: fp})
			return err
		},
		func(ctx context.Context) (err error) {
			prompts, err = d.s.insights.PromptSizes(ctx, name, start)
			return err
		},
		func(ctx context.Context) (err error) {
			latency, err = d.s.insights.LatencyStats(ctx, start, "workload")
			return err
		},
		func(ctx context.Context) (err error) {
			budgets, err = d.s.budgets.StatusesFor(ctx, m, d.s.now())
			return err
		},
		func(ctx context.Context) (err error) {
			alerts, err = d.s.alerts.List(ctx, "", name)
			return err
		},
		func(ctx context.Context) (err error) {
			plans, err = d.s.plans.Plans(ctx)
			return err
		},
	)
	if err != nil {
		d.fail(c, err)
		return
	}
	for _, b := range budgets {
		if b.Workload == name {
			v.Budgets = append(v.Budgets, budgetRowOf(b))
		}
	}
	v.Days = dayRows(days)
	v.Sum = sumDays(v.Days)
	v.Alerts = alerts
	if v.Sum.Records == 0 && len(v.Budgets) == 0 && len(alerts) == 0 {
		d.failWith(c, http.StatusNotFound, fmt.Sprintf("No workload called “%s” has usage, a budget or alerts in %s.", name, v.Month.Label))
		return
	}
	v.MissingPlans = missingPlans(plans, rp, fp)
	if l, ok := latency[name]; ok && l.Records > 0 {
		v.Latency = &l
	}
	v.Prompts = promptRows(prompts)
	v.FLOPsChart = flopsChart("flops-chart", name, m, v.Days)
	v.CostChart = costChart("cost-chart", name, m, v.Days, rp, fp)
	v.BloatChart = bloatChart("bloat-chart", m, v.Days)
	v.PromptChart = promptChart("prompt-chart", name, v.Prompts)
	d.render(c, status, "workload.html", v)
}

// missingPlans says which of the compared plans do not exist (or are of
// the other kind): their bill is then left at zero.
func missingPlans(plans []billing.Plan, rp, fp string) []string {
	kinds := map[string]billing.Kind{}
	for _, p := range plans {
		kinds[p.Name] = p.Kind
	}
	var out []string
	for _, want := range []struct {
		name string
		kind billing.Kind
	}{{rp, billing.KindRequest}, {fp, billing.KindFLOPs}} {
		switch k, ok := kinds[want.name]; {
		case !ok:
			out = append(out, fmt.Sprintf("no plan is called %q: its bill is left at $0", want.name))
		case k != want.kind:
			out = append(out, fmt.Sprintf("plan %q is a %s plan, not a %s plan", want.name, k, want.kind))
		}
	}
	return out
}

func promptRows(buckets []report.PromptBucket) []promptRow {
	if len(buckets) == 0 {
		return nil
	}
	lo, hi := buckets[0].Bucket, buckets[0].Bucket
	var total int64
	byBucket := map[int]report.PromptBucket{}
	for _, b := range buckets {
		lo, hi = min(lo, b.Bucket), max(hi, b.Bucket)
		total += b.Requests
		byBucket[b.Bucket] = b
	}
	var out []promptRow
	for b := lo; b <= hi && b < 62; b++ { // a contiguous axis: empty buckets included
		pb := byBucket[b]
		r := promptRow{From: int64(1) << b, To: int64(1)<<(b+1) - 1, Records: pb.Records, Requests: pb.Requests}
		if total > 0 {
			r.Share = decimal.NewFromInt(pb.Requests).Mul(decimal.NewFromInt(100)).DivRound(decimal.NewFromInt(total), 4)
		}
		out = append(out, r)
	}
	return out
}

func promptChart(id, name string, rows []promptRow) template.HTML {
	s := chartSeries{Name: "Requests", Class: "prompt"}
	var x []string
	for _, r := range rows {
		x = append(x, shortTokens(r.From))
		s.Values = append(s.Values, float64(r.Requests))
		s.Texts = append(s.Texts, formatCount(r.Requests)+" requests with "+formatCount(r.From)+"–"+formatCount(r.To)+" prompt tokens")
	}
	if len(x) == 0 {
		x = []string{""}
	}
	return chart{ID: id, Title: "Prompt sizes of " + name, Desc: "Bars: how many requests had a mean prompt in each power-of-two range of tokens.",
		XLabel: "Prompt tokens per request (from)", YLabel: "Requests", X: x, Series: []chartSeries{s}, Kind: chartBars,
		YTick: countTick, Empty: "No prompt sizes recorded in this month"}.SVG()
}

// shortTokens writes a power of two briefly: 512, 1K, 2K … 1M.
func shortTokens(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return formatCount(n)
}

func budgetRowOf(st budget.Status) budgetRow {
	r := budgetRow{Status: st}
	show := func(v decimal.Decimal) string {
		if st.Kind == budget.TFLOPs {
			return flopsText(v.Shift(12))
		}
		return formatMoney(v)
	}
	r.AmountText, r.SpentText, r.ForecastText = show(st.Amount), show(st.Spent), show(st.Forecast)
	r.Bar = budgetBar(r)
	return r
}

// budgetBar draws a budget as a bar: what is spent, and a tick at the
// forecast; the scale stretches past the budget when it is overrun.
func budgetBar(r budgetRow) template.HTML {
	used, _ := r.UsedPct.Float64()
	fore, _ := r.ForecastPct.Float64()
	scale := math.Max(100, math.Max(used, fore))
	x := func(pct float64) string { return f1(math.Max(0, math.Min(pct, scale)) / scale * 300) }
	esc := template.HTMLEscapeString
	label := fmt.Sprintf("Spent %s of %s (%s); forecast %s (%s) by the month's end", r.SpentText, r.AmountText, formatPct(r.UsedPct), r.ForecastText, formatPct(r.ForecastPct))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="budget-bar" viewBox="0 0 300 22" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg"><title>%s</title>`, esc(label), esc(label))
	fmt.Fprintf(&b, `<rect class="track" x="0" y="4" width="300" height="14" rx="3"/>`)
	fmt.Fprintf(&b, `<rect class="spent %s" x="0" y="4" width="%s" height="14" rx="3"/>`, esc(r.State), x(used))
	fmt.Fprintf(&b, `<line class="limit" x1="%s" x2="%s" y1="0" y2="22"/>`, x(100), x(100))
	fmt.Fprintf(&b, `<line class="forecast" x1="%s" x2="%s" y1="2" y2="20"/>`, x(fore), x(fore))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
