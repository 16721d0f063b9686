package report

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
)

// validate reports every problem of the input at once.
func (in MonthInput) validate() error {
	var ps []estimator.Problem
	add := func(f, format string, a ...any) {
		ps = append(ps, estimator.Problem{Field: f, Message: fmt.Sprintf(format, a...)})
	}
	monthOK := false
	switch {
	case in.Month.IsZero():
		add("month", "is required (the first day of the month)")
	case in.Month.Time().Day() != 1:
		add("month", "must be the first day of a month, not %s", in.Month)
	default:
		monthOK = true
	}
	switch g := in.GroupBy; {
	case g == "workload" || g == "model":
	case strings.HasPrefix(g, "tag:") && len(g) > len("tag:"):
	default:
		add("group_by", "must be workload, model or tag:NAME, not %q", g)
	}
	if in.RequestPlan.Kind != billing.KindRequest {
		add("request_plan", "plan %q is a %q plan, not a request plan", in.RequestPlan.Name, in.RequestPlan.Kind)
	}
	if in.FLOPsPlan.Kind != billing.KindFLOPs {
		add("flops_plan", "plan %q is a %q plan, not a flops plan", in.FLOPsPlan.Name, in.FLOPsPlan.Kind)
	}
	if in.GeneratedAt.IsZero() {
		add("generated_at", "is required")
	}
	if in.LinkBase != "" {
		u, err := url.Parse(in.LinkBase)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			add("link_base", "must be an absolute http(s) URL, not %q", in.LinkBase)
		}
	}
	if monthOK {
		from := in.Month
		to := billing.DateOf(from.Time().AddDate(0, 1, 0))
		prevFrom := billing.DateOf(from.Time().AddDate(0, -1, 0))
		checkDays(add, "rollups", in.Rollups, from, to)
		checkDays(add, "prev_rollups", in.PrevRollups, prevFrom, from)
	}
	for _, k := range sortedKeys(in.Budgets) {
		b, f := in.Budgets[k], "budgets."+k
		if b.Kind != BudgetMoney && b.Kind != BudgetTFLOPs {
			add(f+".kind", "must be %q or %q, not %q", BudgetMoney, BudgetTFLOPs, b.Kind)
		}
		if b.State != BudgetOK && b.State != BudgetAtRisk && b.State != BudgetExceeded {
			add(f+".state", "must be %q, %q or %q, not %q", BudgetOK, BudgetAtRisk, BudgetExceeded, b.State)
		}
		if b.Amount.IsNegative() {
			add(f+".amount", "must not be negative")
		}
	}
	for _, k := range sortedKeys(in.Latency) {
		l, f := in.Latency[k], "latency."+k
		if l.Records < 0 {
			add(f+".records", "must not be negative")
		}
		// NaN and ±Inf cannot be written as JSON.
		for _, v := range []struct {
			name string
			ms   float64
		}{{"p50_ms", l.P50MS}, {"p99_ms", l.P99MS}} {
			if math.IsNaN(v.ms) || math.IsInf(v.ms, 0) || v.ms < 0 {
				add(f+"."+v.name, "must be a finite number of milliseconds, at least 0, not %v", v.ms)
			}
		}
		if l.P99MS < l.P50MS {
			add(f+".p99_ms", "(%v) must not be below p50_ms (%v)", l.P99MS, l.P50MS)
		}
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

// checkDays reports rows outside [from, to) as one problem, so that a wrong
// range does not produce a message per row.
func checkDays(add func(string, string, ...any), field string, rows []Rollup, from, to billing.Date) {
	bad, first := 0, -1
	for i, r := range rows {
		if r.Day.Before(from) || !r.Day.Before(to) {
			bad++
			if first < 0 {
				first = i
			}
		}
	}
	if bad > 0 {
		add(field, "%d rows are outside [%s, %s), the first %s[%d] on %s", bad, from, to, field, first, rows[first].Day)
	}
}
