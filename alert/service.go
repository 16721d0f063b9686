package alert

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/report"
)

// Store is what the service needs from the database; *store.Store
// implements it.
type Store interface {
	// Rollups returns the rollup rows of the days in [from, to).
	Rollups(ctx context.Context, from, to billing.Date) ([]report.Rollup, error)
	// Plan returns the plan called name, or an error wrapping
	// billing.ErrPlanNotFound.
	Plan(ctx context.Context, name string) (billing.Plan, error)
	// SaveAlertEvaluation applies e (see Evaluation) in one transaction,
	// serialised with every other evaluation, and returns the alerts it
	// opened, by id.
	SaveAlertEvaluation(ctx context.Context, e Evaluation) ([]Alert, error)
	// Alerts lists the alerts that match f, newest first.
	Alerts(ctx context.Context, f Filter) ([]Alert, error)
	// Alert returns one alert, or an error wrapping ErrNotFound.
	Alert(ctx context.Context, id int64) (Alert, error)
	// MoveAlert moves alert id from one of the states from to state to, at
	// now, atomically. It fails with ErrNotFound for an unknown id and
	// ErrState when the alert is in another state.
	MoveAlert(ctx context.Context, id int64, from []State, to State, now time.Time) (Alert, error)
}

// Filter selects alerts; empty fields match everything.
type Filter struct {
	State    State
	Workload string
}

// Service evaluates and manages alerts.
type Service struct {
	store Store
	cfg   Config
}

// New returns a Service; it fails when cfg is invalid.
func New(s Store, cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("alert: config: %w", err)
	}
	return &Service{store: s, cfg: cfg}, nil
}

// Evaluate evaluates every workload over the last complete UTC day before
// now (and its baseline) and every budget status given, saves the result,
// and returns the alerts it opened, for the caller to deliver. Running it
// again, or on two instances at once, opens nothing twice: the hourly job
// and an on-demand run may overlap freely.
func (s *Service) Evaluate(ctx context.Context, now time.Time, budgets []BudgetStatus) ([]Alert, error) {
	day := DayWindow(now)
	rows, err := s.store.Rollups(ctx, billing.DateOf(Baseline(day).Start), billing.DateOf(day.End))
	if err != nil {
		return nil, fmt.Errorf("alert: evaluate: %w", err)
	}
	plans, err := s.plans(ctx)
	if err != nil {
		return nil, fmt.Errorf("alert: evaluate: %w", err)
	}
	ev, err := Assess(now, rows, budgets, s.cfg, plans)
	if err != nil {
		return nil, err
	}
	opened, err := s.store.SaveAlertEvaluation(ctx, ev)
	if err != nil {
		return nil, fmt.Errorf("alert: evaluate: %w", err)
	}
	return opened, nil
}

// plans loads the configured plans. A plan that is not configured, does
// not exist or is of the wrong kind is left out (and said so in every
// cost): pricing is part of an alert, not a condition for raising it.
func (s *Service) plans(ctx context.Context) (Plans, error) {
	p := Plans{RequestName: s.cfg.RequestPlan, FLOPsName: s.cfg.FLOPsPlan}
	load := func(name string, kind billing.Kind) (*billing.Plan, error) {
		if name == "" {
			p.Missing = append(p.Missing, fmt.Sprintf("no %s plan is configured", kind))
			return nil, nil
		}
		plan, err := s.store.Plan(ctx, name)
		switch {
		case errors.Is(err, billing.ErrPlanNotFound):
			p.Missing = append(p.Missing, fmt.Sprintf("no plan is called %q", name))
			return nil, nil
		case err != nil:
			return nil, err
		case plan.Kind != kind:
			p.Missing = append(p.Missing, fmt.Sprintf("plan %q is a %s plan, not a %s plan", name, plan.Kind, kind))
			return nil, nil
		}
		return &plan, nil
	}
	var err error
	if p.Request, err = load(s.cfg.RequestPlan, billing.KindRequest); err != nil {
		return Plans{}, err
	}
	if p.FLOPs, err = load(s.cfg.FLOPsPlan, billing.KindFLOPs); err != nil {
		return Plans{}, err
	}
	return p, nil
}

// List returns the alerts in state (all states when empty) of workload
// (all workloads when empty), newest first.
func (s *Service) List(ctx context.Context, state, workload string) ([]Alert, error) {
	if state != "" && !State(state).Valid() {
		return nil, estimator.ValidationError{Problems: []estimator.Problem{{Field: "state",
			Message: fmt.Sprintf("must be %q, %q or %q", Open, Acknowledged, Resolved)}}}
	}
	as, err := s.store.Alerts(ctx, Filter{State: State(state), Workload: workload})
	if err != nil {
		return nil, err
	}
	if as == nil {
		as = []Alert{} // a JSON list, never null
	}
	return as, nil
}

// Get returns the alert with id, or an error wrapping ErrNotFound.
func (s *Service) Get(ctx context.Context, id int64) (Alert, error) { return s.store.Alert(ctx, id) }

// Acknowledge moves an open alert to acknowledged: someone is on it. It
// keeps refreshing while its threshold is crossed, and resolves itself
// like an open one. An alert that is not open fails with ErrState.
func (s *Service) Acknowledge(ctx context.Context, id int64, now time.Time) (Alert, error) {
	return s.store.MoveAlert(ctx, id, []State{Open}, Acknowledged, now.UTC())
}

// Resolve resolves an open or acknowledged alert by hand; a resolved one
// fails with ErrState. The window it covers does not open again; a later
// window that still crosses opens a new alert.
func (s *Service) Resolve(ctx context.Context, id int64, now time.Time) (Alert, error) {
	return s.store.MoveAlert(ctx, id, []State{Open, Acknowledged}, Resolved, now.UTC())
}
