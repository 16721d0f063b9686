package alert

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/flopledger/flopledger/report"
)

// Evaluation is what one evaluation decided, for the store to apply in one
// transaction.
type Evaluation struct {
	Now time.Time
	// Day is the window the data kinds were evaluated over.
	Day Window
	// Fired are the alerts whose threshold was crossed: each opens a new
	// alert, or refreshes the open (or acknowledged) alert of its
	// workload and kind when that one's window does not end after it. A
	// window already covered by an alert, even a resolved one, opens
	// nothing.
	Fired []Alert
	// Cleared are the budget windows that were evaluated and do not cross
	// their threshold; their open alerts resolve themselves. Open data
	// alerts that did not fire and whose window ended by Day.Start resolve
	// themselves too, as do budget alerts whose month is over by Now.
	Cleared []Key
}

// Assess decides every kind for every workload, purely: rows are the
// rollups of [Baseline(DayWindow(now)).Start, DayWindow(now).End) (others
// are ignored), budgets the budget statuses of now. It fails only on
// invalid budget statuses.
func Assess(now time.Time, rows []report.Rollup, budgets []BudgetStatus, cfg Config, plans Plans) (Evaluation, error) {
	if err := validateBudgets(budgets); err != nil {
		return Evaluation{}, err
	}
	now = now.UTC()
	ev := Evaluation{Now: now, Day: DayWindow(now)}
	byWorkload := split(rows, ev.Day)
	for _, w := range slices.Sorted(maps.Keys(byWorkload)) {
		d, t := byWorkload[w], cfg.For(w)
		if a, ok := bloatAlert(w, ev.Day, d.day, t.Bloat, plans); ok {
			ev.Fired = append(ev.Fired, a)
		}
		if a, ok := promptAlert(w, ev.Day, d.day, d.base, t.Prompt, plans); ok {
			ev.Fired = append(ev.Fired, a)
		}
		if a, ok := flopsAlert(w, ev.Day, d.day, d.base, t.FLOPs, plans); ok {
			ev.Fired = append(ev.Fired, a)
		}
	}
	fired, cleared := budgetAlerts(now, budgets, cfg)
	ev.Fired = append(ev.Fired, fired...)
	ev.Cleared = cleared
	slices.SortStableFunc(ev.Fired, func(a, b Alert) int {
		return cmp.Or(cmp.Compare(a.Workload, b.Workload), cmp.Compare(a.Kind, b.Kind))
	})
	return ev, nil
}
