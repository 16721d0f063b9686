package web

import (
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/auth"
	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/deliver"
	"github.com/flopledger/flopledger/importer"
	"github.com/flopledger/flopledger/notify"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/store"
	"github.com/flopledger/flopledger/usage"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// tokens is shared by the tests: loading an encoding costs real time, and a
// Counter is safe for concurrent use.
var tokens = bloat.NewCounter()

// newAPI returns the real HTTP handler over a fresh database of its own.
func newAPI(t *testing.T) http.Handler {
	t.Helper()
	return newAPIWith(t, nil)
}

// newAPIWith is newAPI with delivery channels.
func newAPIWith(t *testing.T, channels []deliver.Channel) http.Handler {
	t.Helper()
	st := pgtest.NewStore(t)
	keys := auth.New(st, testAdminKey, func() time.Time { return testNow })
	notifier := notify.New(channels, deliver.Policy{First: 10 * time.Millisecond, Max: 50 * time.Millisecond}, st, testLogger())
	t.Cleanup(func() { notifier.Close(context.Background()) })
	models := catalog.New(st)
	usages := usage.NewService(st, models, tokens, usage.Options{GroupTags: []string{"team"}})
	h := New(Options{
		Logger: testLogger(), Readiness: st, Quotes: quote.New(models, tokens).WithPlans(st, func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }),
		Models: models, Version: "test",
		Usage: usages, Plans: st, Reports: report.New(st, []string{"team"}), Importer: testImporter{usages},
		OnModelRegistered:  func(string) { _, _ = usages.Backfill(context.Background()) },
		DefaultRequestPlan: "list-price", DefaultFLOPsPlan: "flops-tariff",
		Budgets: budget.New(st), Now: func() time.Time { return testNow },
		Maker:   report.NewMaker(st, report.MakerOptions{GroupTags: []string{"team"}, RequestPlan: "list-price", FLOPsPlan: "flops-tariff"}),
		Archive: st, Notifier: notifier, Alerts: testAlerts{mustAlerts(t, st)}, Insights: st,
		Unavailable: store.IsUnavailable,
		Auth:        keys, Keys: keys, Sessions: keys, RateLimit: rateLimit, RateBurst: 100000,
	})
	token, csrf, _, err := keys.SignIn(context.Background(), testAdminKey)
	if err != nil {
		t.Fatal(err)
	}
	testSessions.Store(h, testSession{token: token, csrf: csrf})
	t.Cleanup(func() { testSessions.Delete(h) })
	return h
}

// testAdminKey is the FLOPLEDGER_ADMIN_KEY of the HTTP tests; do() sends it.
const testAdminKey = "flk_test-admin-key-of-the-http-tests"

// rateLimit per key in the HTTP tests: high, so that only the test of the
// limit itself meets it (it builds its own server).
var rateLimit = 100000.0

// testNow is the clock of the HTTP tests: half of October 2026 has passed
// (15 of its 31 days).
var testNow = time.Date(2026, 10, 16, 0, 0, 0, 0, time.UTC)

// testAlerts evaluates without budgets (cmd adds them in production).
type testAlerts struct{ *alert.Service }

func (a testAlerts) Evaluate(ctx context.Context, now time.Time) ([]alert.Alert, error) {
	return a.Service.Evaluate(ctx, now, nil)
}

func mustAlerts(t *testing.T, st alert.Store) *alert.Service {
	s, err := alert.New(st, alert.Config{RequestPlan: "list-price", FLOPsPlan: "flops-tariff"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type testImporter struct{ u *usage.Service }

func (i testImporter) Import(ctx context.Context, r io.Reader, f importer.Format, o importer.Options) (importer.Summary, error) {
	return importer.Import(ctx, r, f, o, i.u, nil)
}
