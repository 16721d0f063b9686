package report_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/store"
	"github.com/flopledger/flopledger/usage"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// seedPlans stores the two plans the tests price under.
func seedPlans(t testing.TB, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	rp, err := billing.DecodePlan([]byte(`{"name": "list-price", "kind": "request", "effective_from": "2026-01-01", "prices": {"default": {"input_per_mtok": "3", "output_per_mtok": "15"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := billing.DecodePlan([]byte(`{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.0001"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreatePlan(ctx, rp); err != nil {
		t.Fatal(err)
	}
	if err := st.CreatePlan(ctx, fp); err != nil {
		t.Fatal(err)
	}
}

// seed stores two plans and a few October records.
func seed(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	seedPlans(t, st)
	var items []usage.Item
	for i := range 20 {
		items = append(items, usage.Item{Record: usage.Record{ID: fmt.Sprintf("r%d", i), OccurredAt: time.Date(2026, 10, 1+i, 9, 0, 0, 0, time.UTC),
			Workload: []string{"support-chat", "code-assistant"}[i%2], Model: "llama-3.1-8b", InputTokens: int64(150 + 1000*(i%2)), OutputTokens: 400,
			LatencyMS: ptr(int64(800 + 10*i))}})
	}
	if res, err := usage.NewService(st, catalog.New(st), nil, usage.Options{}).Ingest(ctx, items, false); err != nil || res.Accepted != 20 {
		t.Fatalf("%+v %v", res, err)
	}
}

func ptr[T any](v T) *T { return &v }

func newMaker(st *store.Store) *report.Maker {
	return report.NewMaker(st, report.MakerOptions{GroupTags: []string{"team"}, RequestPlan: "list-price", FLOPsPlan: "flops-tariff"})
}

// TestScheduledRunHappensOnce: two instances on one database fire the same
// schedule at the same moment; exactly one makes the report. Firing again
// (or catching up at a restart) makes nothing more.
func TestScheduledRunHappensOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	var stores []*store.Store
	for range 2 {
		st, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		stores = append(stores, st)
	}
	seed(t, stores[0])
	sched := report.Schedule{Name: "monthly", Spec: "0 6 1 * *", GroupBy: "workload", Location: time.UTC}
	fire := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	ran := make([]bool, 2)
	ids := make([]int64, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, r, err := newMaker(stores[i]).RunScheduled(ctx, sched, fire, fmt.Sprintf("instance-%d", i))
			if err != nil {
				t.Error(err)
			}
			ran[i], ids[i] = r, st.ID
		}()
	}
	wg.Wait()
	if ran[0] == ran[1] {
		t.Fatalf("ran = %v: exactly one instance must make the report", ran)
	}
	list, err := stores[0].Reports(ctx, 10)
	if err != nil || len(list) != 1 || list[0].PeriodStart.String() != "2026-10-01" || list[0].Kind != "monthly" {
		t.Fatalf("reports %+v %v", list, err)
	}
	// A restart a week later catches up nothing: October is done.
	if _, _, r, err := newMaker(stores[1]).RunScheduled(ctx, sched, fire.AddDate(0, 0, 7), "instance-restarted"); err != nil || r {
		t.Fatalf("second run: ran %v, %v", r, err)
	}
}

// TestMissedRunIsCaughtUp: the service was down on the 1st; at its next
// start (any day of the month) the previous month's report is made.
func TestMissedRunIsCaughtUp(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	seed(t, st)
	ctx := context.Background()
	sched := report.Schedule{Name: "monthly", GroupBy: "workload", Location: time.UTC}
	rep, m, ran, err := newMaker(st).RunScheduled(ctx, sched, time.Date(2026, 11, 3, 14, 0, 0, 0, time.UTC), "late-start")
	if err != nil || !ran || rep.PeriodStart.String() != "2026-10-01" {
		t.Fatalf("catch-up: ran %v, %+v, %v", ran, rep.PeriodStart, err)
	}
	if len(m.Rows) != 2 || !strings.HasPrefix(rep.CSV, "workload,requests,input_tokens,cached_input_tokens,output_tokens,prefill_flops,decode_flops,request_cost,flops_cost,delta,delta_pct,budget,budget_used_pct,bloat_tokens") {
		t.Fatalf("report rows %d, csv %q", len(m.Rows), rep.CSV[:min(200, len(rep.CSV))])
	}
	lines := strings.Split(strings.TrimSpace(rep.CSV), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "TOTAL,20,") {
		t.Fatalf("csv rows: %q", lines)
	}
	// Latency percentiles come from the histogram kept at ingest.
	for _, r := range m.Rows {
		if r.Latency == nil || r.Latency.Records != 10 || r.Latency.P50MS < 800 || r.Latency.P99MS > 1100 {
			t.Fatalf("%s latency %+v", r.Key, r.Latency)
		}
	}
}

// TestWeeklySummary: a weekly schedule summarises the previous Monday to
// Sunday, once, as a stored report with CSV, HTML and text.
func TestWeeklySummary(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	seed(t, st)
	ctx := context.Background()
	if got := report.PreviousWeek(time.Date(2026, 10, 14, 9, 0, 0, 0, time.UTC), time.UTC).String(); got != "2026-10-05" {
		t.Fatalf("previous week of Wednesday 14 October: %s, want Monday 5 October", got)
	}
	sched := report.Schedule{Name: "weekly", Kind: "weekly", GroupBy: "workload", Location: time.UTC}
	rep, _, ran, err := newMaker(st).RunScheduled(ctx, sched, time.Date(2026, 10, 12, 7, 0, 0, 0, time.UTC), "i")
	if err != nil || !ran || rep.PeriodStart.String() != "2026-10-05" || rep.PeriodEnd.String() != "2026-10-12" || rep.Kind != "weekly" {
		t.Fatalf("weekly: ran %v %+v %v", ran, rep, err)
	}
	lines := strings.Split(strings.TrimSpace(rep.CSV), "\n")
	// seed puts one record a day on 1..20 October: 7 in the week of the 5th.
	if lines[0] != "workload,requests,input_tokens,cached_input_tokens,output_tokens,prefill_flops,decode_flops,request_cost,flops_cost,delta,delta_pct" ||
		!strings.HasPrefix(lines[len(lines)-1], "TOTAL,7,") {
		t.Fatalf("csv %q", lines)
	}
	if !strings.Contains(rep.HTML, "weekly summary — 5 October to 11 October 2026") || strings.Contains(rep.HTML, "<script") || !strings.Contains(rep.Summary, "under list-price") {
		t.Fatalf("html or summary: %s / %s", rep.HTML[:200], rep.Summary)
	}
	if _, _, ran, _ := newMaker(st).RunScheduled(ctx, sched, time.Date(2026, 10, 13, 7, 0, 0, 0, time.UTC), "j"); ran {
		t.Fatal("the same week ran twice")
	}
}
