package alert

import (
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/estimator"
)

// Budget kinds, as BudgetStatus.Kind gives them.
const (
	BudgetMoney  = "money"
	BudgetTFLOPs = "tflops"
)

// BudgetStatus is a workload's monthly budget as the budget package
// computes it; the caller fills it in and passes it to Evaluate.
type BudgetStatus struct {
	Workload string
	Kind     string // BudgetMoney or BudgetTFLOPs
	Amount   decimal.Decimal
	Spent    decimal.Decimal // so far this month
	Forecast decimal.Decimal // for the whole month
	Unit     string          // for sentences: "USD", "TFLOP"
	// Month is the budget's month [Start, End); zero means the UTC
	// calendar month of the evaluation's now.
	Month Window
}

// budgetMethod says what a budget alert's cost is.
const budgetMethod = "the overrun in the budget's own unit (evidence.budget.overrun), as FLOPs for a TFLOPs budget; " +
	"a money figure under each plan would need the month's usage mix, which a budget status does not carry"

// Key names the alert of one workload, kind and window.
type Key struct {
	Workload    string
	Kind        Kind
	WindowStart time.Time
}

func validateBudgets(bs []BudgetStatus) error {
	var ps []estimator.Problem
	for i, b := range bs {
		if b.Kind != BudgetMoney && b.Kind != BudgetTFLOPs {
			ps = append(ps, estimator.Problem{Field: fmt.Sprintf("budgets[%d].kind", i), Message: fmt.Sprintf("must be %q or %q", BudgetMoney, BudgetTFLOPs)})
		}
		if b.Workload == "" {
			ps = append(ps, estimator.Problem{Field: fmt.Sprintf("budgets[%d].workload", i), Message: "is required"})
		}
		if !b.Month.Start.IsZero() && !b.Month.End.After(b.Month.Start) {
			ps = append(ps, estimator.Problem{Field: fmt.Sprintf("budgets[%d].month", i), Message: "must end after it starts"})
		}
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

// budgetAlerts decides the budget kinds. budget_exceeded fires when spent ≥
// Exceeded × amount; budget_at_risk when forecast ≥ AtRisk × amount and no
// budget of the workload is exceeded (the exceeded alert supersedes it). A
// budget without a positive amount fires nothing. When a workload has
// several budgets, the one furthest over speaks for it. Every evaluated
// budget window whose kind did not fire is returned in cleared, so that its
// open alert resolves itself.
func budgetAlerts(now time.Time, bs []BudgetStatus, cfg Config) (fired []Alert, cleared []Key) {
	type pick struct {
		b     BudgetStatus
		value decimal.Decimal // spent or forecast
	}
	// further reports whether a is further over its amount than b: a.value
	// / a.amount > b.value / b.amount, cross-multiplied.
	further := func(a, b pick) bool { return a.value.Mul(b.b.Amount).GreaterThan(b.value.Mul(a.b.Amount)) }
	// A status of a month already over says nothing: that month's alerts
	// resolve themselves because it is over.
	var current []BudgetStatus
	for _, b := range bs {
		if b.Month.Start.IsZero() {
			b.Month = MonthWindow(now)
		}
		if b.Month.End.After(now) {
			current = append(current, b)
		}
	}
	bs = current
	exceeded, atRisk := map[string]pick{}, map[string]pick{}
	var order []string
	for _, b := range bs {
		if !slices.Contains(order, b.Workload) {
			order = append(order, b.Workload)
		}
		if !b.Amount.IsPositive() {
			continue
		}
		r := cfg.For(b.Workload).Budget
		if b.Spent.GreaterThanOrEqual(r.Exceeded.Mul(b.Amount)) {
			if p, ok := exceeded[b.Workload]; !ok || further(pick{b, b.Spent}, p) {
				exceeded[b.Workload] = pick{b, b.Spent}
			}
		}
		if b.Forecast.GreaterThanOrEqual(r.AtRisk.Mul(b.Amount)) {
			if p, ok := atRisk[b.Workload]; !ok || further(pick{b, b.Forecast}, p) {
				atRisk[b.Workload] = pick{b, b.Forecast}
			}
		}
	}
	for _, w := range order {
		r := cfg.For(w).Budget
		e, isExceeded := exceeded[w]
		a, isAtRisk := atRisk[w]
		isAtRisk = isAtRisk && !isExceeded
		if isExceeded {
			fired = append(fired, budgetAlert(BudgetExceeded, e.b, r.Exceeded))
		}
		if isAtRisk {
			fired = append(fired, budgetAlert(BudgetAtRisk, a.b, r.AtRisk))
		}
		for _, b := range bs {
			if b.Workload != w {
				continue
			}
			for _, k := range []Key{{w, BudgetAtRisk, b.Month.Start}, {w, BudgetExceeded, b.Month.Start}} {
				firing := k.Kind == BudgetAtRisk && isAtRisk || k.Kind == BudgetExceeded && isExceeded
				if !firing && !slices.ContainsFunc(cleared, k.equal) {
					cleared = append(cleared, k)
				}
			}
		}
	}
	return fired, cleared
}

func (k Key) equal(o Key) bool {
	return k.Workload == o.Workload && k.Kind == o.Kind && k.WindowStart.Equal(o.WindowStart)
}

// budgetAlert builds the alert of one budget that crossed threshold.
func budgetAlert(kind Kind, b BudgetStatus, threshold decimal.Decimal) Alert {
	value := b.Spent
	if kind == BudgetAtRisk {
		value = b.Forecast
	}
	be := &BudgetEvidence{Kind: b.Kind, Unit: b.Unit, Amount: b.Amount, Spent: b.Spent, Forecast: b.Forecast, Overrun: value.Sub(b.Amount)}
	ev := Evidence{Window: b.Month, Threshold: threshold, Observed: ratio(rat(value), rat(b.Amount)), Budget: be}
	amount := func(d decimal.Decimal) string { return fmtDec(d, 2) + " " + b.Unit }
	var sentence, fix string
	if kind == BudgetExceeded {
		sentence = fmt.Sprintf("Workload %s has spent %s of its %s budget for %s (%s; the threshold is %s).",
			b.Workload, amount(b.Spent), amount(b.Amount), b.Month.label(), fmtPercent(ev.Observed), fmtPercent(threshold))
		fix = fmt.Sprintf("The budget is spent with the month still running: raise it, or hold back the non-essential traffic of %s "+
			"until %s; its bloat, prompt-size and FLOPs alerts and the plan comparison show where the spend goes.",
			b.Workload, b.Month.End.UTC().Format(time.DateOnly))
	} else {
		sentence = fmt.Sprintf("Workload %s is forecast to spend %s against its %s budget for %s (%s; the threshold is %s).",
			b.Workload, amount(b.Forecast), amount(b.Amount), b.Month.label(), fmtPercent(ev.Observed), fmtPercent(threshold))
		fix = fmt.Sprintf("At this pace %s ends the month %s over budget: raise the budget, or cut spend now "+
			"(normalise bloated prompts, shorten prompts, move traffic to a smaller model or to the cheaper plan of the comparison).",
			b.Workload, amount(be.Overrun))
	}
	c := Cost{Method: budgetMethod}
	if b.Kind == BudgetTFLOPs && be.Overrun.IsPositive() {
		c.FLOPs = number(roundRat(mul(rat(be.Overrun), perTera)))
	}
	return Alert{Workload: b.Workload, Kind: kind, WindowStart: b.Month.Start, WindowEnd: b.Month.End,
		Sentence: sentence, Evidence: ev, Cost: c, Fix: fix}
}
