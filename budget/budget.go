// Package budget keeps monthly budgets per workload, in money (under a
// named plan) or in TFLOPs, and says where each stands: spent to date, the
// forecast to the month's end at the current run rate, % used, and a state.
// It reads the daily rollups and takes the clock as an argument.
package budget

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/report"
)

// Kinds of budget.
const (
	Money  = "money"
	TFLOPs = "tflops"
)

// States of a budget.
const (
	OK       = "ok"
	AtRisk   = "at_risk"
	Exceeded = "exceeded"
)

// ErrNotFound is wrapped by the store when a workload has no such budget.
var ErrNotFound = errors.New("budget not found")

// Budget is one budget: for Month, or the default for every month when
// Month is nil.
type Budget struct {
	Workload string          `json:"workload"`
	Month    *Month          `json:"month,omitempty"`
	Kind     string          `json:"kind"`
	Plan     string          `json:"plan,omitempty"`
	Amount   decimal.Decimal `json:"amount"`
}

// Month is a calendar month, "2026-10" in JSON.
type Month struct{ Start billing.Date }

var monthRE = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)

// ParseMonth reads "YYYY-MM".
func ParseMonth(s string) (Month, error) {
	if !monthRE.MatchString(s) {
		return Month{}, fmt.Errorf("%q is not a month YYYY-MM", s)
	}
	d, err := billing.ParseDate(s + "-01")
	return Month{Start: d}, err
}

// MonthOf is the UTC month that t falls in.
func MonthOf(t time.Time) Month {
	u := t.UTC()
	return Month{Start: billing.NewDate(u.Year(), u.Month(), 1)}
}

// Range is the month as a half-open range of days [start, end).
func (m Month) Range() (start, end billing.Date) {
	t := m.Start.Time()
	return m.Start, billing.DateOf(t.AddDate(0, 1, 0))
}

func (m Month) String() string { return m.Start.Time().Format("2006-01") }

// MarshalText writes "YYYY-MM".
func (m Month) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads "YYYY-MM".
func (m *Month) UnmarshalText(b []byte) error {
	v, err := ParseMonth(string(b))
	*m = v
	return err
}

// Input is the body of PUT /v1/budgets/{workload}.
type Input struct {
	Month  string `json:"month,omitempty"` // "YYYY-MM"; empty sets the default for every month
	Kind   string `json:"kind"`
	Plan   string `json:"plan,omitempty"`
	Amount string `json:"amount"` // decimal string: dollars or TFLOPs
}

// Validate reports every problem and returns the budget it describes.
func (in Input) Validate(workload string) (Budget, error) {
	var ps []estimator.Problem
	add := func(f, m string) { ps = append(ps, estimator.Problem{Field: f, Message: m}) }
	b := Budget{Workload: workload, Kind: in.Kind, Plan: in.Plan}
	if workload == "" || len(workload) > 200 {
		add("workload", "must be 1 to 200 bytes")
	}
	if in.Month != "" {
		m, err := ParseMonth(in.Month)
		if err != nil {
			add("month", err.Error())
		}
		b.Month = &m
	}
	switch in.Kind {
	case Money:
		if in.Plan == "" {
			add("plan", "is required for a money budget: the plan its spending is priced under")
		}
	case TFLOPs:
		if in.Plan != "" {
			add("plan", "applies only to a money budget")
		}
	default:
		add("kind", `must be "money" or "tflops"`)
	}
	amount, err := decimal.NewFromString(in.Amount)
	switch {
	case in.Amount == "":
		add("amount", "is required (a decimal string: dollars, or TFLOPs)")
	case err != nil:
		add("amount", fmt.Sprintf("%q is not a decimal number", in.Amount))
	case !amount.IsPositive():
		add("amount", "must be positive")
	}
	b.Amount = amount
	if len(ps) > 0 {
		return Budget{}, estimator.ValidationError{Problems: ps}
	}
	return b, nil
}

// Store keeps budgets and reads what they measure; the store implements it.
type Store interface {
	PutBudget(ctx context.Context, b Budget) error
	DeleteBudget(ctx context.Context, workload string, month *Month) error
	Budgets(ctx context.Context) ([]Budget, error)
	RollupSums(ctx context.Context, from, to billing.Date, boundaries []billing.Date) ([]report.Rollup, error)
	Plan(ctx context.Context, name string) (billing.Plan, error)
}

// Status is where a budget stands in a month.
type Status struct {
	Budget
	For         Month            `json:"for"`
	Spent       decimal.Decimal  `json:"spent"`
	Forecast    decimal.Decimal  `json:"forecast"`
	UsedPct     decimal.Decimal  `json:"used_pct"`
	ForecastPct decimal.Decimal  `json:"forecast_pct"`
	State       string           `json:"state"`
	Unit        string           `json:"unit"` // "USD" or "TFLOPs"
	Error       string           `json:"error,omitempty"`
	Elapsed     *decimal.Decimal `json:"elapsed_share,omitempty"`
}

// Service answers budget questions.
type Service struct {
	store Store
}

// New returns a Service.
func New(s Store) *Service { return &Service{store: s} }

// Put stores a budget after validating it (and that its plan exists).
func (s *Service) Put(ctx context.Context, workload string, in Input) (Budget, error) {
	b, err := in.Validate(workload)
	if err != nil {
		return Budget{}, err
	}
	if b.Kind == Money {
		_, err := s.store.Plan(ctx, b.Plan)
		if errors.Is(err, billing.ErrPlanNotFound) {
			return Budget{}, estimator.ValidationError{Problems: []estimator.Problem{{Field: "plan", Message: fmt.Sprintf("no plan is called %q", b.Plan)}}}
		}
		if err != nil {
			return Budget{}, err
		}
	}
	return b, s.store.PutBudget(ctx, b)
}

// Delete removes a workload's budget for a month, or its default.
func (s *Service) Delete(ctx context.Context, workload, month string) error {
	var m *Month
	if month != "" {
		v, err := ParseMonth(month)
		if err != nil {
			return estimator.ValidationError{Problems: []estimator.Problem{{Field: "month", Message: err.Error()}}}
		}
		m = &v
	}
	return s.store.DeleteBudget(ctx, workload, m)
}

// Statuses returns the status of every workload's budget in force in the
// month of now, as of now.
func (s *Service) Statuses(ctx context.Context, now time.Time) ([]Status, error) {
	return s.StatusesFor(ctx, MonthOf(now), now)
}

// StatusesFor returns the budgets in force in month m as of now (the end
// of the month when now is later).
func (s *Service) StatusesFor(ctx context.Context, m Month, now time.Time) ([]Status, error) {
	all, err := s.store.Budgets(ctx)
	if err != nil {
		return nil, err
	}
	inForce := map[string]Budget{}
	for _, b := range all {
		switch {
		case b.Month == nil:
			if _, ok := inForce[b.Workload]; !ok {
				inForce[b.Workload] = b
			}
		case b.Month.Start == m.Start:
			inForce[b.Workload] = b // a month's own budget wins over the default
		}
	}
	if len(inForce) == 0 {
		return []Status{}, nil
	}
	start, end := m.Range()
	plans := map[string]billing.Plan{}
	var boundaries []billing.Date
	for _, b := range inForce {
		if b.Kind != Money {
			continue
		}
		if _, ok := plans[b.Plan]; ok {
			continue
		}
		p, err := s.store.Plan(ctx, b.Plan)
		if err != nil && !errors.Is(err, billing.ErrPlanNotFound) {
			return nil, err
		}
		plans[b.Plan] = p
		boundaries = append(boundaries, report.Boundaries(p)...)
	}
	rows, err := s.store.RollupSums(ctx, start, end, boundaries)
	if err != nil {
		return nil, err
	}
	done, total := elapsedOf(start, end, now)
	elapsed := decimal.NewFromInt(done).DivRound(decimal.NewFromInt(total), 6)
	out := make([]Status, 0, len(inForce))
	for _, w := range slices.Sorted(maps.Keys(inForce)) {
		b := inForce[w]
		st := Status{Budget: b, For: m, Unit: "TFLOPs", Elapsed: &elapsed}
		if b.Kind == Money {
			st.Unit = "USD"
			if plans[b.Plan].Name == "" {
				st.Error = fmt.Sprintf("plan %q no longer exists", b.Plan)
			}
		}
		for _, r := range rows {
			if r.Workload != w {
				continue
			}
			if b.Kind == TFLOPs {
				st.Spent = st.Spent.Add(r.PrefillFLOPs.Add(r.DecodeFLOPs).Shift(-12))
				continue
			}
			if st.Error != "" {
				continue
			}
			cost, err := plans[b.Plan].Price(r.Usage(), r.Day.Time())
			if err != nil {
				st.Error = fmt.Sprintf("some usage cannot be priced under %q: %v", b.Plan, err)
				continue
			}
			st.Spent = st.Spent.Add(cost)
		}
		st.finish(done, total)
		out = append(out, st)
	}
	return out, nil
}

// finish computes the forecast and the state. The forecast is the run rate
// so far carried to the month's end: spent × month / elapsed (in
// milliseconds, exact up to its 12 decimal places); before any time has
// passed it is the spending itself.
func (st *Status) finish(done, total int64) {
	st.Forecast = st.Spent
	if done > 0 && done < total {
		st.Forecast = st.Spent.Mul(decimal.NewFromInt(total)).DivRound(decimal.NewFromInt(done), 12)
	}
	hundred := decimal.NewFromInt(100)
	st.UsedPct = st.Spent.Mul(hundred).DivRound(st.Amount, 2)
	st.ForecastPct = st.Forecast.Mul(hundred).DivRound(st.Amount, 2)
	switch {
	case st.Spent.GreaterThanOrEqual(st.Amount):
		st.State = Exceeded
	case st.Forecast.GreaterThanOrEqual(st.Amount):
		st.State = AtRisk
	default:
		st.State = OK
	}
}

// elapsedOf is how much of [start, end) has passed at now, and its length,
// in milliseconds.
func elapsedOf(start, end billing.Date, now time.Time) (done, total int64) {
	total = end.Time().Sub(start.Time()).Milliseconds()
	done = min(max(now.Sub(start.Time()).Milliseconds(), 0), total)
	return done, total
}
