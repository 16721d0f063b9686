package alert_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

type env struct {
	url string
	st  *store.Store
	svc *alert.Service
	db  *pgx.Conn
}

// newEnv makes a fresh database with the plans "std" (gpt-4o input at
// $2.50 per million tokens, everything else $0.20) and "tflops" ($0.002 per
// prefill TFLOP, $0.006 per decode TFLOP).
func newEnv(t *testing.T) env {
	t.Helper()
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	st := openStore(t, url)
	dec := decimal.RequireFromString
	for _, p := range []billing.Plan{
		{Name: "std", Kind: billing.KindRequest, Versions: []billing.Version{billing.NewRequestVersion(billing.NewDate(2026, 1, 1),
			map[string]billing.RequestPrices{
				"gpt-4o":             {InputPerMTok: dec("2.50"), OutputPerMTok: dec("10")},
				billing.DefaultModel: {InputPerMTok: dec("0.20"), OutputPerMTok: dec("0.20")},
			})}},
		{Name: "tflops", Kind: billing.KindFLOPs, Versions: []billing.Version{billing.NewFLOPsVersion(billing.NewDate(2026, 1, 1), dec("0.002"), dec("0.006"))}},
	} {
		if err := st.CreatePlan(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	return env{url: url, st: st, svc: newService(t, st), db: db}
}

func openStore(t *testing.T, url string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

func newService(t *testing.T, st *store.Store) *alert.Service {
	t.Helper()
	svc, err := alert.New(st, alert.Config{RequestPlan: "std", FLOPsPlan: "tflops"})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// daily writes one usage_daily row of support-chat directly: the rollups
// are what alerts read.
type daily struct {
	day, model, tags                 string
	records, requests, input, output int64
	prefill, decode                  string
	bloat, bloatInput                int64
}

func (e env) insert(t *testing.T, rows ...daily) {
	t.Helper()
	for _, r := range rows {
		_, err := e.db.Exec(context.Background(), `
INSERT INTO usage_daily (workload, day, model, tags, records, requests, input_tokens, cached_input_tokens, output_tokens,
    prefill_flops, decode_flops, bloat_tokens, bloat_input_tokens)
VALUES ('support-chat', $1, $2, $3, $4, $5, $6, 0, $7, $8, $9, $10, $11)`,
			r.day, r.model, r.tags, r.records, r.requests, r.input, r.output, r.prefill, r.decode, r.bloat, r.bloatInput)
		if err != nil {
			t.Fatal(err)
		}
	}
}

// bloatDay: 16,250 bloat tokens of 225,000 known input tokens (7.22%)
// when gptBloat is 15,000.
func bloatDay(day string, gptBloat int64) []daily {
	return []daily{
		{day: day, model: "gpt-4o", tags: `{"team": "care"}`, records: 40, requests: 40, input: 200_000, output: 20_000,
			prefill: "800000000000000", decode: "100000000000000", bloat: gptBloat, bloatInput: 200_000},
		{day: day, model: "llama-3.1-8b", tags: `{"team": "search"}`, records: 10, requests: 10, input: 50_000,
			prefill: "50000000000000", decode: "0", bloat: 1_250, bloatInput: 25_000},
	}
}

func at(day, hour int) time.Time { return time.Date(2026, 10, day, hour, 30, 0, 0, time.UTC) }

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func evaluate(t *testing.T, svc *alert.Service, now time.Time, budgets ...alert.BudgetStatus) []alert.Alert {
	t.Helper()
	opened, err := svc.Evaluate(context.Background(), now, budgets)
	if err != nil {
		t.Fatal(err)
	}
	return opened
}

func list(t *testing.T, svc *alert.Service, state string) []alert.Alert {
	t.Helper()
	as, err := svc.List(context.Background(), state, "support-chat")
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// TestBloatLifecycle: a bloated day opens one alert with its exact
// evidence and cost; evaluating again opens nothing; a next day that still
// crosses refreshes the same alert; a clear day resolves it.
func TestBloatLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	// Eight days: a clean week, then 2026-10-05 bloated.
	for d := range 7 {
		e.insert(t, bloatDay(time.Date(2026, 9, 28+d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), 1_000)...)
	}
	e.insert(t, bloatDay("2026-10-05", 15_000)...)

	opened := evaluate(t, e.svc, at(6, 0))
	if len(opened) != 1 {
		t.Fatalf("opened %d alerts, want 1: %+v", len(opened), opened)
	}
	a := opened[0]
	if a.Kind != alert.WhitespaceBloat || a.State != alert.Open || a.Workload != "support-chat" ||
		!a.WindowStart.Equal(at(5, 0).Truncate(24*time.Hour)) || !a.WindowEnd.Equal(at(6, 0).Truncate(24*time.Hour)) ||
		!a.OpenedAt.Equal(at(6, 0)) || !a.LastEvaluatedAt.Equal(at(6, 0)) {
		t.Errorf("alert = %+v", a)
	}
	if want := "Workload support-chat sent 7.22% of its analysed prompt tokens as redundant whitespace on 2026-10-05 " +
		"(16,250 of 225,000 tokens; the threshold is 5.00%)."; a.Sentence != want {
		t.Errorf("sentence = %s", a.Sentence)
	}
	wantEvidence := `{"window":{"start":"2026-10-05T00:00:00Z","end":"2026-10-06T00:00:00Z"},"threshold":"0.05","observed":"0.0722",` +
		`"bloat":{"bloat_tokens":16250,"bloat_input_tokens":225000,"records":50,"models":[` +
		`{"model":"gpt-4o","bloat_tokens":15000,"bloat_input_tokens":200000},` +
		`{"model":"llama-3.1-8b","bloat_tokens":1250,"bloat_input_tokens":25000}]}}`
	if got := asJSON(t, a.Evidence); got != wantEvidence {
		t.Errorf("evidence:\n got %s\nwant %s", got, wantEvidence)
	}
	// 8·10^14 × 15,000/200,000 + 5·10^13 × 1,250/50,000 FLOPs;
	// 15,000 × $2.50/M + 1,250 × $0.20/M; 61.25 TFLOP × $0.002.
	if c := a.Cost; c.FLOPs != "61250000000000" || c.RequestCost.String() != "0.03775" || c.FLOPsCost.String() != "0.1225" ||
		c.RequestPlan != "std" || c.FLOPsPlan != "tflops" {
		t.Errorf("cost = %s", asJSON(t, c))
	}
	// What was stored reads back the same.
	got, err := e.svc.Get(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if asJSON(t, got) != asJSON(t, a) {
		t.Errorf("stored alert differs:\n got %s\nwant %s", asJSON(t, got), asJSON(t, a))
	}

	// The next hourly run sees the same window: nothing new.
	if opened := evaluate(t, e.svc, at(6, 1)); len(opened) != 0 {
		t.Fatalf("second run opened %+v", opened)
	}
	if as := list(t, e.svc, ""); len(as) != 1 || !as[0].LastEvaluatedAt.Equal(at(6, 1)) {
		t.Fatalf("after the second run: %+v", as)
	}

	// 2026-10-06 still crosses (20,000 + 1,250 of 225,000): the same alert
	// now runs to the end of the 6th, with that day's evidence.
	e.insert(t, bloatDay("2026-10-06", 20_000)...)
	if opened := evaluate(t, e.svc, at(7, 0)); len(opened) != 0 {
		t.Fatalf("a crossing next day opened %+v", opened)
	}
	as := list(t, e.svc, "")
	if len(as) != 1 || as[0].ID != a.ID || as[0].State != alert.Open || !as[0].WindowStart.Equal(a.WindowStart) ||
		!as[0].WindowEnd.Equal(at(7, 0).Truncate(24*time.Hour)) || as[0].Evidence.Bloat.BloatTokens != 21_250 ||
		as[0].Evidence.Observed.String() != "0.0944" {
		t.Fatalf("after a crossing next day: %s", asJSON(t, as))
	}

	// 2026-10-07 is clear (1,000 + 1,250 of 225,000): resolved by itself.
	e.insert(t, bloatDay("2026-10-07", 1_000)...)
	if opened := evaluate(t, e.svc, at(8, 0)); len(opened) != 0 {
		t.Fatalf("a clear day opened %+v", opened)
	}
	got, err = e.svc.Get(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != alert.Resolved || got.ResolvedBy != alert.ByAuto || got.ResolvedAt == nil || !got.ResolvedAt.Equal(at(8, 0)) ||
		got.Evidence.Bloat.BloatTokens != 21_250 {
		t.Errorf("after a clear day: %s", asJSON(t, got))
	}
	if open := list(t, e.svc, "open"); len(open) != 0 {
		t.Errorf("open alerts: %+v", open)
	}
}

// TestAcknowledgeResolve walks the state machine and its errors.
func TestAcknowledgeResolve(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	e.insert(t, bloatDay("2026-10-05", 15_000)...)
	opened := evaluate(t, e.svc, at(6, 0))
	if len(opened) != 1 {
		t.Fatalf("opened %+v", opened)
	}
	id := opened[0].ID

	a, err := e.svc.Acknowledge(ctx, id, at(6, 9))
	if err != nil || a.State != alert.Acknowledged || a.AcknowledgedAt == nil || !a.AcknowledgedAt.Equal(at(6, 9)) {
		t.Fatalf("acknowledge: %+v, %v", a, err)
	}
	if _, err := e.svc.Acknowledge(ctx, id, at(6, 10)); !errors.Is(err, alert.ErrState) {
		t.Errorf("acknowledging twice: %v, want ErrState", err)
	}
	// An acknowledged alert is still the one alert of its kind.
	if opened := evaluate(t, e.svc, at(6, 11)); len(opened) != 0 {
		t.Errorf("re-evaluation opened %+v", opened)
	}
	if as := list(t, e.svc, "acknowledged"); len(as) != 1 || as[0].ID != id {
		t.Errorf("acknowledged list: %+v", as)
	}

	a, err = e.svc.Resolve(ctx, id, at(6, 12))
	if err != nil || a.State != alert.Resolved || a.ResolvedBy != alert.ByUser || !a.ResolvedAt.Equal(at(6, 12)) || a.AcknowledgedAt == nil {
		t.Fatalf("resolve: %+v, %v", a, err)
	}
	if _, err := e.svc.Resolve(ctx, id, at(6, 13)); !errors.Is(err, alert.ErrState) {
		t.Errorf("resolving twice: %v, want ErrState", err)
	}
	if _, err := e.svc.Acknowledge(ctx, id, at(6, 13)); !errors.Is(err, alert.ErrState) {
		t.Errorf("acknowledging a resolved alert: %v, want ErrState", err)
	}
	// The window was paged once: resolving by hand does not reopen it.
	if opened := evaluate(t, e.svc, at(6, 14)); len(opened) != 0 {
		t.Errorf("re-evaluating a resolved window opened %+v", opened)
	}
	// A later window that still crosses opens a new alert.
	e.insert(t, bloatDay("2026-10-06", 15_000)...)
	if opened := evaluate(t, e.svc, at(7, 0)); len(opened) != 1 || opened[0].ID == id {
		t.Errorf("next crossing window opened %+v, want a new alert", opened)
	}

	for _, err := range []error{
		func() error { _, err := e.svc.Get(ctx, 999); return err }(),
		func() error { _, err := e.svc.Acknowledge(ctx, 999, at(7, 1)); return err }(),
		func() error { _, err := e.svc.Resolve(ctx, 999, at(7, 1)); return err }(),
	} {
		if !errors.Is(err, alert.ErrNotFound) {
			t.Errorf("unknown id: %v, want ErrNotFound", err)
		}
	}
	if _, err := e.svc.List(ctx, "closed", ""); err == nil {
		t.Error("listing state closed: no error")
	}
}

// TestConcurrentEvaluate: two instances (two pools) evaluate at the same
// moment, several times over; exactly one alert is opened, and returned by
// exactly one call.
func TestConcurrentEvaluate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.insert(t, bloatDay("2026-10-05", 15_000)...)
	instances := []*alert.Service{e.svc, newService(t, openStore(t, e.url))}
	const rounds = 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	var opened []alert.Alert
	for i := range 2 * rounds {
		wg.Go(func() {
			got, err := instances[i%2].Evaluate(context.Background(), at(6, 0), nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			opened = append(opened, got...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(opened) != 1 {
		t.Fatalf("opened %d alerts across the calls, want 1: %+v", len(opened), opened)
	}
	if as := list(t, e.svc, ""); len(as) != 1 {
		t.Fatalf("%d alerts stored, want 1", len(as))
	}
}

// TestBudgetLifecycle: at risk opens; exceeded opens and supersedes it;
// the end of the month resolves the exceeded one.
func TestBudgetLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	dec := decimal.RequireFromString
	status := func(spent, forecast string) alert.BudgetStatus {
		return alert.BudgetStatus{Workload: "support-chat", Kind: alert.BudgetMoney, Amount: dec("1000"), Spent: dec(spent),
			Forecast: dec(forecast), Unit: "USD"}
	}
	opened := evaluate(t, e.svc, at(20, 10), status("600", "1100"))
	if len(opened) != 1 || opened[0].Kind != alert.BudgetAtRisk {
		t.Fatalf("opened %+v, want budget_at_risk", opened)
	}
	risk := opened[0]
	if !risk.WindowStart.Equal(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)) || !risk.WindowEnd.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("window = %v – %v, want October", risk.WindowStart, risk.WindowEnd)
	}
	// An hour later the forecast has grown: the same alert, refreshed.
	if opened := evaluate(t, e.svc, at(20, 11), status("650", "1200")); len(opened) != 0 {
		t.Fatalf("refresh opened %+v", opened)
	}
	if got, _ := e.svc.Get(ctx, risk.ID); got.Evidence.Budget.Forecast.String() != "1200" {
		t.Errorf("refreshed forecast = %s", got.Evidence.Budget.Forecast)
	}

	opened = evaluate(t, e.svc, at(25, 10), status("1000", "1250"))
	if len(opened) != 1 || opened[0].Kind != alert.BudgetExceeded {
		t.Fatalf("opened %+v, want budget_exceeded", opened)
	}
	if got, _ := e.svc.Get(ctx, risk.ID); got.State != alert.Resolved || got.ResolvedBy != alert.ByAuto {
		t.Errorf("at-risk alert after exceeding: %s %s", got.State, got.ResolvedBy)
	}

	// November: October's alert is over; November's budget is fine.
	nov := status("10", "300")
	if opened := evaluate(t, e.svc, time.Date(2026, 11, 1, 0, 30, 0, 0, time.UTC), nov); len(opened) != 0 {
		t.Fatalf("November opened %+v", opened)
	}
	if open := list(t, e.svc, "open"); len(open) != 0 {
		t.Errorf("still open: %s", asJSON(t, open))
	}
}
