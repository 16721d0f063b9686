package report

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// Thresholds and precisions of the monthly report. Percentages are rounded
// once, half away from zero (decimal.DivRound), from exact sums.
const (
	// MoversTop is how many gainers and how many losers the findings list.
	MoversTop = 3
	// BloatMinPct: a group is a bloat offender when its bloat tokens are at
	// least this percentage of the input tokens of its records whose bloat
	// is known (bloat_input_tokens)…
	BloatMinPct = 5
	// BloatMinTokens …and at least this many bloat tokens in the month, so
	// that a handful of padded test prompts is not a finding.
	BloatMinTokens = 10_000
	// BloatTop is how many bloat offenders the findings list.
	BloatTop = 5
	// PctPlaces: budget used %, bloat % (2 places).
	PctPlaces = 2
)

// Budget kinds and states, as BudgetStatus carries them.
const (
	BudgetMoney    = "money"  // Amount, Spent and Forecast are dollars
	BudgetTFLOPs   = "tflops" // Amount, Spent and Forecast are TFLOPs
	BudgetOK       = "ok"
	BudgetAtRisk   = "at_risk"
	BudgetExceeded = "exceeded"
)

// BudgetStatus is a group's budget for the month as the caller evaluated it
// (budgets live in the alert package and the store, not here).
type BudgetStatus struct {
	Kind     string          `json:"kind"`           // BudgetMoney or BudgetTFLOPs
	Plan     string          `json:"plan,omitempty"` // money budgets: the plan the spend is measured under
	Amount   decimal.Decimal `json:"amount"`         // for the month, dollars or TFLOPs
	Spent    decimal.Decimal `json:"spent"`          // to date, same unit
	Forecast decimal.Decimal `json:"forecast"`       // to the month's end at the run rate, same unit
	// UsedPct is Spent / Amount × 100, PctPlaces places; BuildMonthly fills
	// it in when the caller left it nil and Amount is positive.
	UsedPct *decimal.Decimal `json:"used_pct"`
	State   string           `json:"state"` // BudgetOK, BudgetAtRisk or BudgetExceeded
}

// LatencyStats is a group's latency over the month, from the records that
// reported one. Percentiles do not add up, so the caller computes them per
// group and the total row has none.
type LatencyStats struct {
	Records int64   `json:"records"`
	P50MS   float64 `json:"p50_ms"`
	P99MS   float64 `json:"p99_ms"`
}

// MonthInput is everything a monthly report is built from. The caller reads
// the rollups, plans, budgets and latency percentiles; BuildMonthly does no
// I/O and reads no clock.
type MonthInput struct {
	Month       billing.Date // first day of the month (UTC)
	GroupBy     string       // "workload" (default), "model" or "tag:NAME"
	RequestPlan billing.Plan // a plan of kind request
	FLOPsPlan   billing.Plan // a plan of kind flops
	Rollups     []Rollup     // the days of Month
	PrevRollups []Rollup     // the days of the month before, for the change figures
	Budgets     map[string]BudgetStatus
	Latency     map[string]LatencyStats // by group key; a group without an entry recorded no latency
	// Unpriced lists records priced nowhere for a reason the rollups cannot
	// show (Store.UnknownModels); BuildMonthly adds the rollup rows it
	// cannot price.
	Unpriced    []Unpriced
	GeneratedAt time.Time // shown in the report; required (the clock is the caller's)
	Title       string    // default "flopledger monthly report — October 2026"
	LinkBase    string    // absolute http(s) URL of the dashboard, linked from the HTML; "" for none
}

// Change compares a group with the month before, on the usage both plans
// could price in each month.
type Change struct {
	PrevFLOPs       json.Number     `json:"prev_flops"` // prefill + decode
	PrevRequestCost decimal.Decimal `json:"prev_request_cost"`
	// FLOPsPct and RequestCostPct are (this − previous) / previous × 100,
	// billing.DeltaPctPlaces places; nil when the previous month had none.
	FLOPsPct       *decimal.Decimal `json:"flops_pct"`
	RequestCostPct *decimal.Decimal `json:"request_cost_pct"`
}

// Latency is a group's LatencyStats and the tail ratio.
type Latency struct {
	LatencyStats
	// P99OverP50 is P99MS / P50MS rounded to 2 places; nil when P50MS is 0.
	P99OverP50 *float64 `json:"p99_over_p50"`
}

// MonthlyRow is one group of the month (or the total, Key "TOTAL"): the
// comparison figures of Compare, the bloat and what it costs under each
// plan, the budget, the latency and the change against the month before.
type MonthlyRow struct {
	Figures
	TotalFLOPs json.Number `json:"total_flops"`
	// BloatPct is BloatTokens / BloatInputTokens × 100, PctPlaces places;
	// nil when no record of the group had its bloat measured.
	BloatPct *decimal.Decimal `json:"bloat_pct"`
	// BloatFLOPs is the prefill FLOPs the bloat tokens account for: per
	// rollup row, prefill FLOPs × bloat tokens / input tokens, rounded to the
	// nearest FLOP (halves up), then summed. It is a linear share: the
	// attention terms grow with the square of the prompt length, so for long
	// prompts the real saving from removing the bloat is larger.
	BloatFLOPs json.Number `json:"bloat_flops"`
	// BloatRequestCost is bloat tokens × the model's uncached input price
	// (the version of each row's day); BloatFLOPsCost is BloatFLOPs × the
	// prefill price of that day. Both exact, in dollars.
	BloatRequestCost decimal.Decimal `json:"bloat_request_cost"`
	BloatFLOPsCost   decimal.Decimal `json:"bloat_flops_cost"`
	Budget           *BudgetStatus   `json:"budget"`  // nil without a budget
	Latency          *Latency        `json:"latency"` // nil when no latency was recorded
	Change           Change          `json:"change"`
}

// Mover is a group whose bill changes most under FLOPs billing.
type Mover struct {
	Key         string           `json:"key"`
	RequestCost decimal.Decimal  `json:"request_cost"`
	FLOPsCost   decimal.Decimal  `json:"flops_cost"`
	Delta       decimal.Decimal  `json:"delta"`
	DeltaPct    *decimal.Decimal `json:"delta_pct"`
}

// BloatOffender is a group that pads its prompts (see BloatMinPct).
type BloatOffender struct {
	Key              string          `json:"key"`
	BloatTokens      int64           `json:"bloat_tokens"`
	BloatInputTokens int64           `json:"bloat_input_tokens"`
	BloatPct         decimal.Decimal `json:"bloat_pct"`
	BloatRequestCost decimal.Decimal `json:"bloat_request_cost"`
	BloatFLOPsCost   decimal.Decimal `json:"bloat_flops_cost"`
}

// BudgetFinding is a budget exceeded or at risk.
type BudgetFinding struct {
	Key string `json:"key"`
	BudgetStatus
}

// Findings are what a reader wants first.
type Findings struct {
	// Gainers pay less under FLOPs billing: the MoversTop most negative
	// deltas, most negative first. Losers pay more: the most positive first.
	Gainers []Mover `json:"gainers"`
	Losers  []Mover `json:"losers"`
	// BloatOffenders, by bloat cost under the FLOPs plan (the plan being
	// weighed), then under the request plan, at most BloatTop.
	BloatOffenders []BloatOffender `json:"bloat_offenders"`
	// BudgetsExceeded and BudgetsAtRisk, the most used first; they include
	// budgets of groups without usage this month.
	BudgetsExceeded []BudgetFinding `json:"budgets_exceeded"`
	BudgetsAtRisk   []BudgetFinding `json:"budgets_at_risk"`
	// RevenueNeutralPerTFLOP is the one price per TFLOP (prefill and decode
	// alike) at which the month's FLOPs bill equals its request bill
	// (billing.BreakEvenPlaces places); nil without FLOPs.
	RevenueNeutralPerTFLOP *decimal.Decimal `json:"revenue_neutral_price_per_tflop"`
}

// FLOPsPrice is a FLOPs-plan version in force during the month.
type FLOPsPrice struct {
	EffectiveFrom   billing.Date    `json:"effective_from"`
	PrefillPerTFLOP decimal.Decimal `json:"prefill_per_tflop"`
	DecodePerTFLOP  decimal.Decimal `json:"decode_per_tflop"`
}

// Monthly is the monthly report; its JSON is the API's. FLOPs are exact
// integers (JSON numbers); money is exact, unrounded (JSON strings).
type Monthly struct {
	Title       string       `json:"title"`
	Month       billing.Date `json:"month"`
	From        billing.Date `json:"from"` // = Month
	To          billing.Date `json:"to"`   // first day of the next month, exclusive
	GroupBy     string       `json:"group_by"`
	RequestPlan string       `json:"request_plan"`
	FLOPsPlan   string       `json:"flops_plan"`
	FLOPsPrices []FLOPsPrice `json:"flops_prices"`
	GeneratedAt time.Time    `json:"generated_at"`
	LinkBase    string       `json:"link_base,omitempty"`
	Rows        []MonthlyRow `json:"rows"` // sorted by key
	Total       MonthlyRow   `json:"total"`
	Findings    Findings     `json:"findings"`
	// Unpriced usage is left out of both bills (and of the change figures,
	// which compare priced usage with priced usage).
	Unpriced []Unpriced `json:"unpriced"`
}

// monthAcc accumulates one group of the month: Compare's acc plus bloat.
type monthAcc struct {
	acc
	bloatFLOPs, bloatRC, bloatFC decimal.Decimal
}

// prevAcc accumulates one group of the month before.
type prevAcc struct{ flops, rc decimal.Decimal }

// pricedRow is a rollup row's two bills and its bloat's share of each.
type pricedRow struct {
	rc, fc, bloatFLOPs, bloatRC, bloatFC decimal.Decimal
}

// BuildMonthly prices the month's rollups under both plans, each row by the
// versions in force on its day, and builds the report. Rows that cannot be
// priced (no price for the model, no version in force) are left out of both
// bills and listed in Unpriced, as Compare does. It fails with an
// estimator.ValidationError listing every problem of the input, or with the
// pricing error of a malformed rollup row.
func BuildMonthly(in MonthInput) (Monthly, error) {
	if in.GroupBy == "" {
		in.GroupBy = "workload"
	}
	if err := in.validate(); err != nil {
		return Monthly{}, err
	}
	from := in.Month
	to := billing.DateOf(from.Time().AddDate(0, 1, 0))
	m := Monthly{
		Title: in.Title, Month: from, From: from, To: to, GroupBy: in.GroupBy,
		RequestPlan: in.RequestPlan.Name, FLOPsPlan: in.FLOPsPlan.Name, FLOPsPrices: flopsPrices(in.FLOPsPlan, from, to),
		GeneratedAt: in.GeneratedAt.UTC(), LinkBase: in.LinkBase,
		Rows: []MonthlyRow{}, Unpriced: []Unpriced{},
	}
	if m.Title == "" {
		m.Title = "flopledger monthly report — " + from.Time().Format("January 2006")
	}
	names := Query{RequestPlan: in.RequestPlan.Name, FLOPsPlan: in.FLOPsPlan.Name}

	groups := map[string]*monthAcc{}
	unpriced := map[[2]string]*Unpriced{}
	for _, r := range in.Rollups {
		p, err1, err2 := priceRow(in.RequestPlan, in.FLOPsPlan, r)
		if err := errors.Join(err1, err2); err != nil {
			if !errors.Is(err, billing.ErrUnpriced) && !errors.Is(err, billing.ErrNoVersion) {
				return Monthly{}, fmt.Errorf("report: price %s %s %s: %w", r.Day, r.Workload, r.Model, err)
			}
			// One entry per model and reason, however many days.
			why := reason(err1, err2, names)
			k := [2]string{r.Model, why}
			if unpriced[k] == nil {
				unpriced[k] = &Unpriced{Model: r.Model, Reason: why}
			}
			unpriced[k].Records += r.Records
			continue
		}
		k := groupKey(in.GroupBy, r)
		a := groups[k]
		if a == nil {
			a = &monthAcc{acc: acc{f: Figures{Key: k}}}
			groups[k] = a
		}
		a.add(r, p.rc, p.fc)
		a.bloatFLOPs = a.bloatFLOPs.Add(p.bloatFLOPs)
		a.bloatRC = a.bloatRC.Add(p.bloatRC)
		a.bloatFC = a.bloatFC.Add(p.bloatFC)
	}

	prev := map[string]*prevAcc{}
	var prevAll prevAcc
	for _, r := range in.PrevRollups {
		p, err1, err2 := priceRow(in.RequestPlan, in.FLOPsPlan, r)
		if err := errors.Join(err1, err2); err != nil {
			if !errors.Is(err, billing.ErrUnpriced) && !errors.Is(err, billing.ErrNoVersion) {
				return Monthly{}, fmt.Errorf("report: price %s %s %s: %w", r.Day, r.Workload, r.Model, err)
			}
			continue // left out of the change figures, like this month's
		}
		k := groupKey(in.GroupBy, r)
		if prev[k] == nil {
			prev[k] = &prevAcc{}
		}
		flops := r.PrefillFLOPs.Add(r.DecodeFLOPs)
		prev[k].flops = prev[k].flops.Add(flops)
		prev[k].rc = prev[k].rc.Add(p.rc)
		prevAll.flops = prevAll.flops.Add(flops)
		prevAll.rc = prevAll.rc.Add(p.rc)
	}

	var all monthAcc
	for _, k := range sortedKeys(groups) {
		a := groups[k]
		row := a.row()
		if b, ok := in.Budgets[k]; ok {
			b = b.withUsedPct()
			row.Budget = &b
		}
		if l, ok := in.Latency[k]; ok && l.Records > 0 {
			row.Latency = latency(l)
		}
		row.Change = change(a.prefill.Add(a.decode), a.rc, prev[k])
		m.Rows = append(m.Rows, row)
		all.merge(&a.acc)
		all.bloatFLOPs = all.bloatFLOPs.Add(a.bloatFLOPs)
		all.bloatRC = all.bloatRC.Add(a.bloatRC)
		all.bloatFC = all.bloatFC.Add(a.bloatFC)
	}
	all.f.Key = "TOTAL"
	m.Total = all.row()
	m.Total.Change = change(all.prefill.Add(all.decode), all.rc, &prevAll)

	for _, u := range unpriced {
		m.Unpriced = append(m.Unpriced, *u)
	}
	m.Unpriced = append(m.Unpriced, in.Unpriced...)
	slices.SortFunc(m.Unpriced, func(a, b Unpriced) int {
		return cmp.Or(strings.Compare(a.Model, b.Model), strings.Compare(a.Reason, b.Reason))
	})
	m.Findings = findings(m.Rows, m.Total, in.Budgets)
	return m, nil
}

// priceRow prices r under both plans by the versions of its day, and its
// bloat with them. err1 and err2 are the request and FLOPs plans' errors.
func priceRow(rp, fp billing.Plan, r Rollup) (p pricedRow, err1, err2 error) {
	u := r.Usage()
	day := r.Day.Time()
	p.rc, err1 = rp.Price(u, day)
	p.fc, err2 = fp.Price(u, day)
	if err1 != nil || err2 != nil {
		return pricedRow{}, err1, err2
	}
	// Price succeeded, so both versions exist and the model has prices.
	rv, _ := rp.VersionAt(day)
	fv, _ := fp.VersionAt(day)
	prices, _ := rv.PricesFor(r.Model)
	bloat := decimal.NewFromInt(r.BloatTokens)
	// Bloat is padding the client sent and the cache cannot be assumed to
	// hold, so it is charged at the uncached input price.
	p.bloatRC = prices.InputPerMTok.Mul(bloat).Shift(-6)
	if r.BloatTokens > 0 && r.InputTokens > 0 {
		// A linear share of the prefill FLOPs: it ignores that attention
		// grows faster than linearly with the prompt, so it understates
		// the FLOPs saved by trimming long prompts.
		p.bloatFLOPs = r.PrefillFLOPs.Mul(bloat).DivRound(decimal.NewFromInt(r.InputTokens), 0)
	}
	p.bloatFC = fv.PrefillPerTFLOP.Mul(p.bloatFLOPs).Shift(-12)
	return p, nil, nil
}

// row turns the accumulated group into a report row (without budget,
// latency and change, which come from elsewhere).
func (a *monthAcc) row() MonthlyRow {
	r := MonthlyRow{Figures: a.figures()}
	r.TotalFLOPs = json.Number(a.prefill.Add(a.decode).StringFixed(0))
	if n := a.f.BloatInputTokens; n > 0 {
		pct := decimal.NewFromInt(a.f.BloatTokens).Mul(decimal.NewFromInt(100)).DivRound(decimal.NewFromInt(n), PctPlaces)
		r.BloatPct = &pct
	}
	r.BloatFLOPs = json.Number(a.bloatFLOPs.StringFixed(0))
	r.BloatRequestCost, r.BloatFLOPsCost = a.bloatRC, a.bloatFC
	return r
}

// change compares a group's FLOPs and request cost with its previous
// month's (p is nil when it had no priced usage).
func change(flops, rc decimal.Decimal, p *prevAcc) Change {
	if p == nil {
		p = &prevAcc{}
	}
	return Change{PrevFLOPs: json.Number(p.flops.StringFixed(0)), PrevRequestCost: p.rc,
		FLOPsPct: pctChange(flops, p.flops), RequestCostPct: pctChange(rc, p.rc)}
}

// pctChange is (cur − prev) / prev × 100 at billing.DeltaPctPlaces places;
// nil when prev is 0.
func pctChange(cur, prev decimal.Decimal) *decimal.Decimal {
	if prev.IsZero() {
		return nil
	}
	pct := cur.Sub(prev).Mul(decimal.NewFromInt(100)).DivRound(prev, billing.DeltaPctPlaces)
	return &pct
}

func latency(l LatencyStats) *Latency {
	out := &Latency{LatencyStats: l}
	if l.P50MS > 0 {
		r := math.Round(l.P99MS/l.P50MS*100) / 100
		out.P99OverP50 = &r
	}
	return out
}

// withUsedPct fills in UsedPct when the caller left it out.
func (b BudgetStatus) withUsedPct() BudgetStatus {
	if b.UsedPct == nil && b.Amount.IsPositive() {
		pct := b.Spent.Mul(decimal.NewFromInt(100)).DivRound(b.Amount, PctPlaces)
		b.UsedPct = &pct
	}
	return b
}

// flopsPrices lists the FLOPs-plan versions in force on some day of
// [from, to).
func flopsPrices(p billing.Plan, from, to billing.Date) []FLOPsPrice {
	out := []FLOPsPrice{}
	for i, v := range p.Versions {
		next := i+1 < len(p.Versions) && !p.Versions[i+1].EffectiveFrom.After(from)
		if next || !v.EffectiveFrom.Before(to) {
			continue // superseded before the month, or not yet in force
		}
		out = append(out, FLOPsPrice{EffectiveFrom: v.EffectiveFrom, PrefillPerTFLOP: v.PrefillPerTFLOP, DecodePerTFLOP: v.DecodePerTFLOP})
	}
	return out
}
