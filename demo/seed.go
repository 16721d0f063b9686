package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/usage"
)

// Deps are the services Seed writes through; cmd wires the real ones.
type Deps struct {
	Plans interface {
		CreatePlan(ctx context.Context, p billing.Plan) error
		Plans(ctx context.Context) ([]billing.Plan, error)
	}
	Models interface {
		Register(ctx context.Context, r catalog.Registration) (catalog.Model, bool, error)
	}
	Usage interface {
		Ingest(ctx context.Context, items []usage.Item, atomic bool) (usage.Result, error)
	}
	Budgets interface {
		Put(ctx context.Context, workload string, in budget.Input) (budget.Budget, error)
	}
	// Alerts evaluates data and budget alerts at now (with the budget
	// statuses of now); nil skips alerting. It should deliver nothing:
	// the seeded alerts are history, not news.
	Alerts interface {
		Evaluate(ctx context.Context, now time.Time) ([]alert.Alert, error)
	}
	// Now places the data set: it covers the Days UTC days before the day
	// of Now, so that this month and the last 90 days are filled.
	Now time.Time
}

// batchSize is the number of records per Ingest call: each is one
// transaction, big enough to be quick and small enough to stay light.
const batchSize = 5000

// Seed fills an empty database once. It returns seeded=false without
// writing anything when the database has a plan already (the demo's own
// list-price plan, or the user's), or when another instance created the
// list-price plan a moment ago and is seeding. The list-price plan is
// written first and marks the database: a seed interrupted after it is
// not resumed (reset the database to seed again).
func Seed(ctx context.Context, d Deps, log *slog.Logger) (seeded bool, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if d.Now.IsZero() {
		return false, errors.New("demo: Deps.Now is required: it places the data set")
	}
	existing, err := d.Plans.Plans(ctx)
	if err != nil {
		return false, fmt.Errorf("demo: %w", err)
	}
	if len(existing) > 0 {
		log.Info("demo data not seeded: the database has plans already", slog.Int("plans", len(existing)))
		return false, nil
	}
	started := time.Now() // wall time, for the log only
	p := newPeriod(d.Now)
	list := requestPlan(p)
	if err := list.Validate(); err != nil {
		return false, fmt.Errorf("demo: plan %s: %w", RequestPlan, err)
	}
	cal, err := calibrate(p, list)
	if err != nil {
		return false, err
	}
	if err := d.Plans.CreatePlan(ctx, list); errors.Is(err, billing.ErrPlanExists) {
		log.Info("demo data not seeded: another instance is seeding")
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("demo: plan %s: %w", RequestPlan, err)
	}
	if err := setup(ctx, d, p, cal); err != nil {
		return false, err
	}
	records, opened, err := ingest(ctx, d, p)
	if err != nil {
		return false, err
	}
	log.Info("demo data seeded",
		slog.Int("records", records), slog.String("from", p.first.Format(time.DateOnly)),
		slog.String("to", p.today.AddDate(0, 0, -1).Format(time.DateOnly)),
		slog.String("flops_tariff_per_tflop", cal.tariff().String()),
		slog.Int("alerts_opened", opened), slog.Duration("took", time.Since(started)))
	return true, nil
}

// setup writes everything but the usage: the FLOPs plan, the stand-in
// model and the budgets.
func setup(ctx context.Context, d Deps, p period, cal calibration) error {
	fp := flopsPlan(p, cal.tariff())
	if err := fp.Validate(); err != nil {
		return fmt.Errorf("demo: plan %s: %w", FLOPsPlan, err)
	}
	if err := d.Plans.CreatePlan(ctx, fp); err != nil {
		return fmt.Errorf("demo: plan %s: %w", FLOPsPlan, err)
	}
	if _, _, err := d.Models.Register(ctx, catalog.Registration{Name: StandIn, StandInFor: StandInFor}); err != nil {
		return fmt.Errorf("demo: model %s: %w", StandIn, err)
	}
	for _, b := range budgets(p, cal) {
		if _, err := d.Budgets.Put(ctx, b.workload, b.in); err != nil {
			return fmt.Errorf("demo: budget of %s: %w", b.workload, err)
		}
	}
	return nil
}

// ingest stores the data set in time order, in batches of batchSize, and
// evaluates alerts at each evaluation time once every record before it is
// stored, so that alerts open and resolve themselves as they would have
// with live traffic. It returns the records stored and the alerts opened.
func ingest(ctx context.Context, d Deps, p period) (records, opened int, err error) {
	evals := p.evaluations()
	batch := make([]usage.Item, 0, batchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res, err := d.Usage.Ingest(ctx, batch, true)
		if err != nil {
			return fmt.Errorf("demo: ingest: %w", err)
		}
		if len(res.Rejected) > 0 { // a bug of the generator: say which record
			r := res.Rejected[0]
			return fmt.Errorf("demo: record %s rejected: %s %s", r.ID, r.Field, r.Error)
		}
		records += res.Accepted
		batch = batch[:0]
		return nil
	}
	evaluate := func(at time.Time) error {
		if err := flush(); err != nil {
			return err
		}
		if d.Alerts == nil {
			return nil
		}
		as, err := d.Alerts.Evaluate(ctx, at)
		if err != nil {
			return fmt.Errorf("demo: evaluate alerts at %s: %w", at.Format(time.RFC3339), err)
		}
		opened += len(as)
		return nil
	}
	err = generate(p, func(r usage.Record) error {
		for len(evals) > 0 && !r.OccurredAt.Before(evals[0]) {
			if err := evaluate(evals[0]); err != nil {
				return err
			}
			evals = evals[1:]
		}
		batch = append(batch, usage.Item{Record: r})
		if len(batch) == batchSize {
			return flush()
		}
		return nil
	})
	if err != nil {
		return records, opened, err
	}
	for _, at := range evals {
		if err := evaluate(at); err != nil {
			return records, opened, err
		}
	}
	return records, opened, flush()
}
