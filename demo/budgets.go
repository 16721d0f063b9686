package demo

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/budget"
)

// budgetSpec is one budget Seed puts: a default for every month.
type budgetSpec struct {
	workload string
	in       budget.Input
}

// budgets sets four monthly budgets from the calibration, so that at now
// the code assistant's money budget is at risk (spent below it, forecast
// above), the agent's TFLOPs budget is exceeded by its runaway loop (it
// held until the loop's day), and RAG search (money) and support chat
// (TFLOPs) are comfortable.
//
// On the first day of a month nothing of the month is spent yet, so no
// budget can be at risk or exceeded: the amounts are then sized on the
// last 30 days and every budget is comfortable.
func budgets(p period, c calibration) []budgetSpec {
	start := time.Date(p.now.Year(), p.now.Month(), 1, 0, 0, 0, 0, time.UTC)
	first := int(start.Sub(p.first).Hours()) / 24 // day index of the month's first day
	// The share of the month gone at now, as budget.Status computes it.
	done := decimal.NewFromInt(p.now.Sub(start).Milliseconds())
	total := decimal.NewFromInt(start.AddDate(0, 1, 0).Sub(start).Milliseconds())
	forecast := func(spent decimal.Decimal) decimal.Decimal {
		if !done.IsPositive() {
			return spent
		}
		return spent.Mul(total).DivRound(done, 12)
	}
	month := func(w string) figures { return c.sum(w, first, Days) }
	// scale is a month's worth of w's usage at its current pace.
	scale := func(w string, of func(figures) decimal.Decimal) decimal.Decimal {
		if s := of(month(w)); s.IsPositive() {
			return forecast(s)
		}
		return of(c.sum(w, Days-30, Days))
	}
	cost := func(f figures) decimal.Decimal { return f.cost }
	tflops := func(f figures) decimal.Decimal { return f.flops.Shift(-12) }

	atRisk := decimal.New(9, -1).Mul(scale("code-assistant", cost))
	if s := month("code-assistant").cost; s.IsPositive() {
		atRisk = between(s, forecast(s), decimal.New(4, -1))
	}
	exceeded := decimal.New(9, -1).Mul(scale(surgeWorkload, tflops))
	if s, before := tflops(month(surgeWorkload)), tflops(c.sum(surgeWorkload, first, surgeDay)); s.GreaterThan(before) {
		exceeded = between(before, s, decimal.New(5, -1))
	}
	return []budgetSpec{
		{"code-assistant", budget.Input{Kind: budget.Money, Plan: RequestPlan, Amount: atRisk.String()}},
		{surgeWorkload, budget.Input{Kind: budget.TFLOPs, Amount: exceeded.String()}},
		{"rag-search", budget.Input{Kind: budget.Money, Plan: RequestPlan, Amount: significant(scale("rag-search", cost).Mul(decimal.NewFromInt(2)), 2).String()}},
		{"support-chat", budget.Input{Kind: budget.TFLOPs, Amount: significant(scale("support-chat", tflops).Mul(decimal.New(16, -1)), 2).String()}},
	}
}

// between returns a round number strictly between lo and hi, near the
// point frac of the way: the fewest significant digits that stay inside.
func between(lo, hi, frac decimal.Decimal) decimal.Decimal {
	x := lo.Add(hi.Sub(lo).Mul(frac))
	for n := int32(2); n <= 12; n++ {
		if r := significant(x, n); r.GreaterThan(lo) && r.LessThan(hi) {
			return r
		}
	}
	return x
}
