package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// findings picks what a reader wants first from the rows.
func findings(rows []MonthlyRow, total MonthlyRow, budgets map[string]BudgetStatus) Findings {
	f := Findings{Gainers: []Mover{}, Losers: []Mover{}, BloatOffenders: []BloatOffender{},
		BudgetsExceeded: []BudgetFinding{}, BudgetsAtRisk: []BudgetFinding{}, RevenueNeutralPerTFLOP: total.BreakEven}
	byDelta := slices.Clone(rows)
	slices.SortStableFunc(byDelta, func(a, b MonthlyRow) int { return a.Delta.Cmp(b.Delta) }) // rows are sorted by key already
	for _, r := range byDelta {
		if r.Delta.IsNegative() && len(f.Gainers) < MoversTop {
			f.Gainers = append(f.Gainers, mover(r))
		}
	}
	slices.SortStableFunc(byDelta, func(a, b MonthlyRow) int { return cmp.Or(b.Delta.Cmp(a.Delta), strings.Compare(a.Key, b.Key)) })
	for _, r := range byDelta {
		if r.Delta.IsPositive() && len(f.Losers) < MoversTop {
			f.Losers = append(f.Losers, mover(r))
		}
	}
	for _, r := range rows {
		// Exact: bloat × 100 ≥ BloatMinPct × bloat_input.
		if r.BloatInputTokens > 0 && r.BloatTokens >= BloatMinTokens && r.BloatTokens*100 >= BloatMinPct*r.BloatInputTokens {
			f.BloatOffenders = append(f.BloatOffenders, BloatOffender{Key: r.Key, BloatTokens: r.BloatTokens, BloatInputTokens: r.BloatInputTokens,
				BloatPct: *r.BloatPct, BloatRequestCost: r.BloatRequestCost, BloatFLOPsCost: r.BloatFLOPsCost})
		}
	}
	slices.SortStableFunc(f.BloatOffenders, func(a, b BloatOffender) int {
		return cmp.Or(b.BloatFLOPsCost.Cmp(a.BloatFLOPsCost), b.BloatRequestCost.Cmp(a.BloatRequestCost))
	})
	f.BloatOffenders = f.BloatOffenders[:min(len(f.BloatOffenders), BloatTop)]
	for _, k := range sortedKeys(budgets) {
		b := BudgetFinding{Key: k, BudgetStatus: budgets[k].withUsedPct()}
		switch b.State {
		case BudgetExceeded:
			f.BudgetsExceeded = append(f.BudgetsExceeded, b)
		case BudgetAtRisk:
			f.BudgetsAtRisk = append(f.BudgetsAtRisk, b)
		}
	}
	mostUsed := func(a, b BudgetFinding) int { return cmpUsed(b.UsedPct, a.UsedPct) }
	slices.SortStableFunc(f.BudgetsExceeded, mostUsed)
	slices.SortStableFunc(f.BudgetsAtRisk, mostUsed)
	return f
}

func mover(r MonthlyRow) Mover {
	return Mover{Key: r.Key, RequestCost: r.RequestCost, FLOPsCost: r.FLOPsCost, Delta: r.Delta, DeltaPct: r.DeltaPct}
}

// cmpUsed orders used percentages, nil below every value.
func cmpUsed(a, b *decimal.Decimal) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Cmp(*b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
