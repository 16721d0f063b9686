package demo_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/demo"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/store"
	"github.com/flopledger/flopledger/usage"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// alerting gives the alert service the budget statuses of now, as cmd
// does, without delivering anything.
type alerting struct {
	alerts  *alert.Service
	budgets *budget.Service
}

func (a alerting) Evaluate(ctx context.Context, now time.Time) ([]alert.Alert, error) {
	statuses, err := a.budgets.Statuses(ctx, now)
	if err != nil {
		return nil, err
	}
	var in []alert.BudgetStatus
	for _, s := range statuses {
		if s.Error == "" {
			in = append(in, alert.BudgetStatus{Workload: s.Workload, Kind: s.Kind, Amount: s.Amount, Spent: s.Spent, Forecast: s.Forecast, Unit: s.Unit})
		}
	}
	return a.alerts.Evaluate(ctx, now, in)
}

type env struct {
	st      *store.Store
	db      *pgx.Conn
	deps    demo.Deps
	budgets *budget.Service
}

func newEnv(t *testing.T, now time.Time) env {
	t.Helper()
	st, db := pgtest.NewStoreAndConn(t)
	models := catalog.New(st)
	budgets := budget.New(st)
	alerts, err := alert.New(st, alert.Config{RequestPlan: demo.RequestPlan, FLOPsPlan: demo.FLOPsPlan})
	if err != nil {
		t.Fatal(err)
	}
	return env{st: st, db: db, budgets: budgets, deps: demo.Deps{
		Plans: st, Models: models, Budgets: budgets, Alerts: alerting{alerts, budgets}, Now: now,
		Usage: usage.NewService(st, models, nil, usage.Options{GroupTags: []string{"team"}}),
	}}
}

func (e env) count(t *testing.T, q string) int64 {
	t.Helper()
	var n int64
	if err := e.db.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestSeed seeds a real database once and checks that every page of the
// dashboard has something to show.
func TestSeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 10, 20, 9, 30, 0, 0, time.UTC)
	e := newEnv(t, now)

	started := time.Now()
	seeded, err := demo.Seed(ctx, e.deps, slog.New(slog.NewTextHandler(t.Output(), nil)))
	if err != nil || !seeded {
		t.Fatalf("Seed = %v, %v; want true, nil", seeded, err)
	}
	t.Logf("Seed took %s", time.Since(started))

	records := e.count(t, `SELECT count(*) FROM usage_records`)
	if records < 100_000 || records > 200_000 {
		t.Errorf("%d records; want 100k to 200k", records)
	}
	requests := e.count(t, `SELECT sum(requests)::bigint FROM usage_records`)
	t.Logf("%d records standing for %d requests", records, requests)
	if n := e.count(t, `SELECT count(DISTINCT workload) FROM usage_daily`); n < 6 {
		t.Errorf("%d workloads; want at least 6", n)
	}
	if n := e.count(t, `SELECT count(DISTINCT model) FROM usage_daily`); n < 7 {
		t.Errorf("%d priced models; want at least 7", n)
	}
	if n := e.count(t, `SELECT count(*) FROM usage_records WHERE latency_ms IS NULL OR ttft_ms IS NULL`); n != 0 {
		t.Errorf("%d records without latency or time to first token", n)
	}
	if n := e.count(t, `SELECT count(*) FROM usage_records WHERE NOT tags ?& array['team', 'customer', 'env']`); n != 0 {
		t.Errorf("%d records without team, customer and env tags", n)
	}

	checkAlerts(t, e)
	checkBudgets(t, e, now)
	checkUnpriced(t, e)
	checkComparison(t, e, now)

	// A second run writes nothing.
	again, err := demo.Seed(ctx, e.deps, nil)
	if err != nil || again {
		t.Fatalf("second Seed = %v, %v; want false, nil", again, err)
	}
	if n := e.count(t, `SELECT count(*) FROM usage_records`); n != records {
		t.Errorf("the second Seed changed the records: %d, then %d", records, n)
	}
}

func checkAlerts(t *testing.T, e env) {
	t.Helper()
	as, err := e.st.Alerts(context.Background(), alert.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]alert.State{}
	for _, a := range as {
		t.Logf("alert %s %s %s %s–%s: observed %s", a.Workload, a.Kind, a.State,
			a.WindowStart.Format(time.DateOnly), a.WindowEnd.Format(time.DateOnly), a.Evidence.Observed)
		got[a.Workload+" "+string(a.Kind)] = a.State
	}
	for key, want := range map[string]alert.State{
		"rag-search whitespace_bloat":   alert.Resolved, // the episode is over
		"agent flops_surge":             alert.Open,     // yesterday's runaway loop
		"agent prompt_inflation":        alert.Open,
		"agent budget_exceeded":         alert.Open,
		"code-assistant budget_at_risk": alert.Open,
	} {
		if got[key] != want {
			t.Errorf("alert %s is %q; want %q", key, got[key], want)
		}
	}
}

func checkBudgets(t *testing.T, e env, now time.Time) {
	t.Helper()
	statuses, err := e.budgets.Statuses(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, s := range statuses {
		t.Logf("budget %s %s %s %s: spent %s, forecast %s", s.Workload, s.Kind, s.Amount, s.State, s.Spent.StringFixed(2), s.Forecast.StringFixed(2))
		states[s.Workload] = s.State
	}
	for w, want := range map[string]string{"code-assistant": budget.AtRisk, "agent": budget.Exceeded, "rag-search": budget.OK, "support-chat": budget.OK} {
		if states[w] != want {
			t.Errorf("budget of %s is %q; want %q", w, states[w], want)
		}
	}
}

func checkUnpriced(t *testing.T, e env) {
	t.Helper()
	us, err := e.st.UnpricedModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 1 || us[0].Model != demo.Unpriced || us[0].Records == 0 {
		t.Fatalf("unpriced models %+v; want some records of %s", us, demo.Unpriced)
	}
	t.Logf("%d unpriced records of %s", us[0].Records, us[0].Model)
}

// checkComparison compares the last full month under both plans: some
// workloads must be cheaper under FLOPs billing and some dearer.
func checkComparison(t *testing.T, e env, now time.Time) {
	t.Helper()
	to := billing.NewDate(now.Year(), now.Month(), 1)
	from := billing.DateOf(to.Time().AddDate(0, -1, 0))
	c, err := report.New(e.st, []string{"team"}).Compare(context.Background(),
		report.Query{From: from, To: to, RequestPlan: demo.RequestPlan, FLOPsPlan: demo.FLOPsPlan})
	if err != nil {
		t.Fatal(err)
	}
	var cheaper, dearer int
	for _, g := range c.Groups {
		t.Logf("%s %s–%s: request %s, FLOPs %s (%s%%)", g.Key, from, to, g.RequestCost.StringFixed(2), g.FLOPsCost.StringFixed(2), g.DeltaPct)
		switch g.Delta.Sign() {
		case -1:
			cheaper++
		case 1:
			dearer++
		}
	}
	if cheaper < 2 || dearer < 2 {
		t.Errorf("%d workloads cheaper and %d dearer under FLOPs billing; want at least 2 of each", cheaper, dearer)
	}
	if rn := c.Total.RevenueNeutral; rn != nil {
		t.Logf("revenue-neutral price %s per TFLOP", rn)
	}
}
