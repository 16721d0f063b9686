package web

import (
	"context"
	"net/http"
	"regexp"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

// compareView is the two plans side by side per workload, with an
// optional what-if price per TFLOP in place of the FLOPs plan.
type compareView struct {
	page
	Month                  monthNav
	RequestPlan, FLOPsPlan string
	RequestPlans           []string
	FLOPsPlans             []string
	WhatIf                 string // as typed
	WhatIfPrice            *decimal.Decimal
	WhatIfError            string
	Compared               bool
	Rows                   []compareRow
	Total                  compareRow
	RevenueNeutral         *decimal.Decimal
	Unpriced               []report.Unpriced
	Sort                   sorter
}

// compareRow is one workload (or the total): the request bill, the FLOPs
// bill (under the plan, or at the what-if price) and their difference.
type compareRow struct {
	workloadRow
	PrefillShare *decimal.Decimal
	// PlanFLOPsCost is the FLOPs plan's bill, kept for reference when the
	// FLOPs column shows the what-if price.
	PlanFLOPsCost decimal.Decimal
}

// whatIfRE is a plain non-negative decimal: no sign, exponent or spaces.
var whatIfRE = regexp.MustCompile(`^[0-9]{1,10}(\.[0-9]{1,18})?$`)

func (d *dashboard) compare(c *gin.Context) {
	ctx := c.Request.Context()
	m, problem := d.monthParam(c)
	rp, fp := d.planParams(c)
	v := compareView{page: d.pageFor(c, "Compare the plans", "/compare"), RequestPlan: rp, FLOPsPlan: fp, WhatIf: strings.TrimSpace(c.Query("what_if"))}
	v.Month = monthNavFor(c, m, problem, "request_plan", "flops_plan", "what_if", "sort", "dir")
	status := http.StatusOK
	if problem != "" {
		status = http.StatusUnprocessableEntity
		v.Errors = append(v.Errors, problem)
	}
	if v.WhatIf != "" {
		if p, err := decimal.NewFromString(v.WhatIf); err == nil && whatIfRE.MatchString(v.WhatIf) {
			v.WhatIfPrice = &p
		} else {
			v.WhatIfError = "must be a price in dollars per TFLOP written as a plain decimal, such as 0.00003"
			v.Errors = append(v.Errors, "what-if price: "+v.WhatIfError)
			status = http.StatusUnprocessableEntity
		}
	}
	start, end := m.Range()
	var cmp report.Comparison
	var cmpErr error
	var plans []billing.Plan
	err := gather(ctx,
		func(ctx context.Context) error {
			cmp, cmpErr = d.s.reports.Compare(ctx, report.Query{From: start, To: end, RequestPlan: rp, FLOPsPlan: fp})
			if _, _, ok := problems(cmpErr); ok {
				return nil
			}
			return cmpErr
		},
		func(ctx context.Context) (err error) {
			plans, err = d.s.plans.Plans(ctx)
			return err
		})
	if err != nil {
		d.fail(c, err)
		return
	}
	for _, p := range plans {
		if p.Kind == billing.KindRequest {
			v.RequestPlans = append(v.RequestPlans, p.Name)
		} else {
			v.FLOPsPlans = append(v.FLOPsPlans, p.Name)
		}
	}
	if cmpErr != nil {
		_, msgs, _ := problems(cmpErr)
		v.Errors = append(v.Errors, msgs...)
		if c.Query("request_plan") != "" || c.Query("flops_plan") != "" {
			status = http.StatusUnprocessableEntity // a plan the reader chose
		}
		d.render(c, status, "compare.html", v)
		return
	}
	v.Compared = true
	v.Unpriced = cmp.Unpriced
	v.RevenueNeutral = cmp.Total.RevenueNeutral
	for _, g := range cmp.Groups {
		v.Rows = append(v.Rows, v.row(g, m.String()))
	}
	v.Total = v.row(cmp.Total.Figures, "")
	v.Sort = newSorter(c.Request.URL.Path, c.Request.URL.Query(), "comparison", "workload", "asc", map[string]string{
		"workload": colText, "requests": colNum, "flops": colNum, "prefill_share": colNum, "request_cost": colNum, "flops_cost": colNum,
		"delta": colNum, "delta_pct": colNum, "break_even": colNum, "winner": colText,
	})
	keys := map[string]func(a, b compareRow) int{
		"prefill_share": func(a, b compareRow) int { return orMinus(a.PrefillShare).Cmp(orMinus(b.PrefillShare)) },
		"break_even":    func(a, b compareRow) int { return orMinus(a.BreakEven).Cmp(orMinus(b.BreakEven)) },
	}
	for k, f := range workloadSortKeys() {
		if _, ok := keys[k]; !ok {
			keys[k] = func(a, b compareRow) int { return f(a.workloadRow, b.workloadRow) }
		}
	}
	sortRows(v.Rows, v.Sort, keys)
	d.render(c, status, "compare.html", v)
}

// row compares one group; at a what-if price, the FLOPs bill is the
// group's FLOPs × price / 10^12 and the difference follows from it.
func (v *compareView) row(g report.Figures, month string) compareRow {
	flops := decimalOf(g.PrefillFLOPs).Add(decimalOf(g.DecodeFLOPs))
	r := compareRow{workloadRow: workloadRow{Name: g.Key, Requests: g.Requests, FLOPs: flops, RequestCost: g.RequestCost,
		FLOPsCost: g.FLOPsCost, Delta: g.Delta, DeltaPct: g.DeltaPct, BreakEven: g.BreakEven, Priced: true},
		PrefillShare: g.PrefillShare, PlanFLOPsCost: g.FLOPsCost}
	if month != "" {
		r.URL = workloadURL(g.Key, month)
	}
	if v.WhatIfPrice != nil {
		comp := billing.Compare(billing.Group{Key: g.Key, RequestCost: g.RequestCost,
			FLOPsCost: flops.Mul(*v.WhatIfPrice).Shift(-12), PrefillFLOPs: decimalOf(g.PrefillFLOPs), DecodeFLOPs: decimalOf(g.DecodeFLOPs)})
		r.FLOPsCost, r.Delta, r.DeltaPct = comp.FLOPsCost, comp.Delta, comp.DeltaPct
	}
	return r
}

// PrefillPct is the prefill share in percent.
func (r compareRow) PrefillPct() *decimal.Decimal {
	if r.PrefillShare == nil {
		return nil
	}
	p := r.PrefillShare.Shift(2)
	return &p
}

func orMinus(d *decimal.Decimal) decimal.Decimal {
	if d == nil {
		return decimal.NewFromInt(-1)
	}
	return *d
}
