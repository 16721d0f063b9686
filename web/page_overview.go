package web

import (
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/usage"
)

// overviewView is the page at /: a month of every workload.
type overviewView struct {
	page
	Month                  monthNav
	RequestPlan, FLOPsPlan string
	// PlanProblems say why there is no comparison (a plan missing); the
	// FLOPs are shown all the same.
	PlanProblems []string
	Compared     bool
	Total        report.Total
	TotalFLOPs   decimal.Decimal
	Rows         []workloadRow
	Sort         sorter
	Days         []dayRow
	FLOPsChart   template.HTML
	CostChart    template.HTML
	Open         []alert.Alert
	MoreOpen     int
	Unpriced     []report.Unpriced
}

// workloadRow is a workload's month under both plans, with its budget.
type workloadRow struct {
	Name, URL   string
	Requests    int64
	FLOPs       decimal.Decimal
	RequestCost decimal.Decimal
	FLOPsCost   decimal.Decimal
	Delta       decimal.Decimal
	DeltaPct    *decimal.Decimal
	BreakEven   *decimal.Decimal
	Budget      *budget.Status
	Priced      bool
}

// Winner names the cheaper plan.
func (r workloadRow) Winner() string {
	switch {
	case !r.Priced || (r.RequestCost.IsZero() && r.FLOPsCost.IsZero()):
		return ""
	case r.Delta.IsNegative():
		return "FLOPs plan"
	case r.Delta.IsPositive():
		return "Request plan"
	}
	return "Tie"
}

// WinnerClass is the winner's colour class.
func (r workloadRow) WinnerClass() string {
	switch r.Winner() {
	case "FLOPs plan":
		return "flops"
	case "Request plan":
		return "request"
	}
	return ""
}

const overviewAlerts = 8

func (d *dashboard) overview(c *gin.Context) {
	ctx := c.Request.Context()
	m, problem := d.monthParam(c)
	rp, fp := d.planParams(c)
	v := overviewView{page: d.pageFor(c, "Overview", "/"), RequestPlan: rp, FLOPsPlan: fp}
	v.Month = monthNavFor(c, m, problem, "request_plan", "flops_plan", "sort", "dir")
	status := http.StatusOK
	if problem != "" {
		status = http.StatusUnprocessableEntity
		v.Errors = append(v.Errors, problem)
	}
	start, end := m.Range()

	var cmp report.Comparison
	var cmpErr error
	var days []report.DayPoint
	var budgets []budget.Status
	var open []alert.Alert
	err := gather(ctx,
		func(ctx context.Context) error {
			cmp, cmpErr = d.s.reports.Compare(ctx, report.Query{From: start, To: end, RequestPlan: rp, FLOPsPlan: fp})
			if _, _, ok := problems(cmpErr); ok {
				return nil // a plan that does not exist yet: shown on the page
			}
			return cmpErr
		},
		func(ctx context.Context) (err error) {
			days, err = d.s.reports.Daily(ctx, report.DailyQuery{From: start, To: d.chartEnd(end), RequestPlan: rp, FLOPsPlan: fp})
			return err
		},
		func(ctx context.Context) (err error) {
			budgets, err = d.s.budgets.StatusesFor(ctx, m, d.s.now())
			return err
		},
		func(ctx context.Context) (err error) {
			open, err = d.s.alerts.List(ctx, string(alert.Open), "")
			return err
		},
	)
	if err != nil {
		d.fail(c, err)
		return
	}
	byBudget := map[string]*budget.Status{}
	for i := range budgets {
		byBudget[budgets[i].Workload] = &budgets[i]
	}
	seen := map[string]bool{}
	if cmpErr == nil {
		v.Compared, v.Total = true, cmp.Total
		v.TotalFLOPs = decimalOf(cmp.Total.PrefillFLOPs).Add(decimalOf(cmp.Total.DecodeFLOPs))
		v.Unpriced = cmp.Unpriced
		for _, g := range cmp.Groups {
			seen[g.Key] = true
			v.Rows = append(v.Rows, workloadRow{Name: g.Key, URL: workloadURL(g.Key, m.String()), Requests: g.Requests,
				FLOPs: decimalOf(g.PrefillFLOPs).Add(decimalOf(g.DecodeFLOPs)), RequestCost: g.RequestCost, FLOPsCost: g.FLOPsCost,
				Delta: g.Delta, DeltaPct: g.DeltaPct, BreakEven: g.BreakEven, Budget: byBudget[g.Key], Priced: true})
		}
	} else {
		_, v.PlanProblems, _ = problems(cmpErr)
		if c.Query("request_plan") != "" || c.Query("flops_plan") != "" {
			status = http.StatusUnprocessableEntity // a plan the reader chose
		}
		// Without both plans there are no bills, but there is usage: list
		// the workloads (one more read of the month's rollups) and what
		// cannot be priced at all.
		var names []string
		var unpriced []usage.Unpriced
		err := gather(ctx,
			func(ctx context.Context) (err error) {
				names, err = d.s.reports.Workloads(ctx, start, end)
				return err
			},
			func(ctx context.Context) (err error) {
				unpriced, err = d.s.usage.Unpriced(ctx)
				return err
			})
		if err != nil {
			d.fail(c, err)
			return
		}
		for _, n := range names {
			seen[n] = true
			v.Rows = append(v.Rows, workloadRow{Name: n, URL: workloadURL(n, m.String()), Budget: byBudget[n]})
		}
		for _, u := range unpriced {
			v.Unpriced = append(v.Unpriced, report.Unpriced{Model: u.Model, Records: u.Records,
				Reason: "unknown model: register it and its records are priced"})
		}
	}
	for _, b := range budgets { // a budget without usage this month still shows
		if !seen[b.Workload] {
			v.Rows = append(v.Rows, workloadRow{Name: b.Workload, URL: workloadURL(b.Workload, m.String()), Budget: byBudget[b.Workload], Priced: cmpErr == nil})
		}
	}
	v.Sort = newSorter(c.Request.URL.Path, c.Request.URL.Query(), "workloads", "workload", "asc", map[string]string{
		"workload": colText, "requests": colNum, "flops": colNum, "request_cost": colNum, "flops_cost": colNum,
		"delta": colNum, "delta_pct": colNum, "winner": colText, "budget": colDesc,
	})
	sortRows(v.Rows, v.Sort, workloadSortKeys())

	v.Days = dayRows(days)
	v.FLOPsChart = flopsChart("flops-chart", "all workloads", m, v.Days)
	v.CostChart = costChart("cost-chart", "all workloads", m, v.Days, rp, fp)
	v.Open = open
	if len(open) > overviewAlerts {
		v.Open, v.MoreOpen = open[:overviewAlerts], len(open)-overviewAlerts
	}
	d.render(c, status, "overview.html", v)
}

func workloadSortKeys() map[string]func(a, b workloadRow) int {
	budgetUse := func(r workloadRow) decimal.Decimal {
		if r.Budget == nil {
			return decimal.NewFromInt(-1)
		}
		return r.Budget.UsedPct
	}
	pct := func(p *decimal.Decimal) decimal.Decimal {
		if p == nil {
			return decimal.NewFromInt(-1 << 40)
		}
		return *p
	}
	return map[string]func(a, b workloadRow) int{
		"workload":     func(a, b workloadRow) int { return strings.Compare(a.Name, b.Name) },
		"requests":     byField(func(r workloadRow) int64 { return r.Requests }),
		"flops":        func(a, b workloadRow) int { return a.FLOPs.Cmp(b.FLOPs) },
		"request_cost": func(a, b workloadRow) int { return a.RequestCost.Cmp(b.RequestCost) },
		"flops_cost":   func(a, b workloadRow) int { return a.FLOPsCost.Cmp(b.FLOPsCost) },
		"delta":        func(a, b workloadRow) int { return a.Delta.Cmp(b.Delta) },
		"delta_pct":    func(a, b workloadRow) int { return pct(a.DeltaPct).Cmp(pct(b.DeltaPct)) },
		"winner":       byField(func(r workloadRow) string { return r.Winner() }),
		"budget":       func(a, b workloadRow) int { return budgetUse(a).Cmp(budgetUse(b)) },
	}
}

// decimalOf reads an exact integer written as a JSON number.
func decimalOf(n interface{ String() string }) decimal.Decimal {
	d, err := decimal.NewFromString(n.String())
	if err != nil {
		return decimal.Decimal{}
	}
	return d
}
