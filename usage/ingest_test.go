package usage_test

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/store"
	"github.com/flopledger/flopledger/usage"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var tokens = bloat.NewCounter()

type env struct {
	svc    *usage.Service
	models *catalog.Registry
	db     *pgx.Conn
}

func newEnv(t *testing.T) env {
	t.Helper()
	url := pgtest.NewDatabase(t)
	st, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	models := catalog.New(st)
	return env{svc: usage.NewService(st, models, tokens, usage.Options{GroupTags: []string{"team"}}), models: models, db: conn}
}

// record is a factory with sensible defaults; fields are overridden by f.
func record(id string, f func(*usage.Record)) usage.Record {
	r := usage.Record{ID: id, OccurredAt: time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC), Workload: "support-chat",
		Model: "llama-3.1-8b", InputTokens: 150, OutputTokens: 400, Tags: map[string]string{"team": "care", "customer": "acme"}}
	if f != nil {
		f(&r)
	}
	return r
}

func items(rs ...usage.Record) []usage.Item {
	out := make([]usage.Item, len(rs))
	for i, r := range rs {
		out[i] = usage.Item{Record: r}
	}
	return out
}

func (e env) count(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// checkRollups asserts that the daily rollups equal the sums of the priced
// records, field by field.
func (e env) checkRollups(t *testing.T) {
	t.Helper()
	var diff int64
	err := e.db.QueryRow(context.Background(), `
		WITH r AS (
			SELECT workload, (occurred_at AT TIME ZONE 'UTC')::date AS day, model, count(*) AS records, sum(requests) AS requests,
			       sum(input_tokens) AS input, sum(cached_input_tokens) AS cached, sum(output_tokens) AS output,
			       sum(prefill_flops) AS prefill, sum(decode_flops) AS decode, coalesce(sum(bloat_tokens), 0) AS bloat,
			       coalesce(sum(input_tokens) FILTER (WHERE bloat_tokens IS NOT NULL), 0) AS bloat_input,
			       count(latency_ms) AS latency_n, coalesce(sum(latency_ms), 0) AS latency_sum
			FROM usage_records WHERE prefill_flops IS NOT NULL GROUP BY 1, 2, 3),
		d AS (
			SELECT workload, day, model, sum(records) AS records, sum(requests) AS requests, sum(input_tokens) AS input,
			       sum(cached_input_tokens) AS cached, sum(output_tokens) AS output, sum(prefill_flops) AS prefill,
			       sum(decode_flops) AS decode, sum(bloat_tokens) AS bloat, sum(bloat_input_tokens) AS bloat_input,
			       sum(latency_records) AS latency_n, sum(latency_ms_sum) AS latency_sum
			FROM usage_daily GROUP BY 1, 2, 3)
		SELECT count(*) FROM r FULL JOIN d USING (workload, day, model)
		WHERE r.records IS DISTINCT FROM d.records OR r.requests IS DISTINCT FROM d.requests OR r.input IS DISTINCT FROM d.input
		   OR r.cached IS DISTINCT FROM d.cached OR r.output IS DISTINCT FROM d.output OR r.prefill IS DISTINCT FROM d.prefill
		   OR r.decode IS DISTINCT FROM d.decode OR r.bloat IS DISTINCT FROM d.bloat OR r.bloat_input IS DISTINCT FROM d.bloat_input
		   OR r.latency_n IS DISTINCT FROM d.latency_n OR r.latency_sum IS DISTINCT FROM d.latency_sum`).Scan(&diff)
	if err != nil || diff != 0 {
		t.Fatalf("rollups differ from the records in %d groups (%v)", diff, err)
	}
	// The histograms count every record, priced or not, by workload and month.
	err = e.db.QueryRow(context.Background(), `
		WITH r AS (
			SELECT workload, date_trunc('month', occurred_at AT TIME ZONE 'UTC')::date AS month,
			       count(*) AS records, sum(requests) AS requests, count(latency_ms) AS latency_n
			FROM usage_records GROUP BY 1, 2),
		p AS (SELECT workload, month, sum(records) AS records, sum(requests) AS requests FROM usage_prompt_monthly GROUP BY 1, 2),
		l AS (SELECT workload, month, sum(n) AS latency_n FROM usage_latency_monthly GROUP BY 1, 2)
		SELECT count(*) FROM r FULL JOIN p USING (workload, month) FULL JOIN l USING (workload, month)
		WHERE r.records IS DISTINCT FROM p.records OR r.requests IS DISTINCT FROM p.requests
		   OR coalesce(r.latency_n, 0) IS DISTINCT FROM coalesce(l.latency_n, 0)`).Scan(&diff)
	if err != nil || diff != 0 {
		t.Fatalf("histograms differ from the records in %d workload-months (%v)", diff, err)
	}
}

func TestPartialBatchKeepsValidRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	batch := items(
		record("a", nil),
		record("b", func(r *usage.Record) { r.CachedInputTokens = 200 }), // more cached than input
		record("c", func(r *usage.Record) { r.Workload = "" }),
		record("d", func(r *usage.Record) { r.Requests = 3; r.InputTokens = 900 }),
	)
	batch = append(batch, usage.Item{Record: usage.Record{ID: "e"}, Err: fmt.Errorf("line 5: not JSON")})
	res, err := e.svc.Ingest(context.Background(), batch, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 2 || res.Duplicates != 0 {
		t.Fatalf("accepted %d duplicates %d, want 2 and 0", res.Accepted, res.Duplicates)
	}
	want := map[string]string{"b": "cached_input_tokens", "c": "workload", "e": ""}
	if len(res.Rejected) != len(want) {
		t.Fatalf("rejected %+v", res.Rejected)
	}
	for _, r := range res.Rejected {
		if f, ok := want[r.ID]; !ok || f != r.Field || r.Error == "" {
			t.Errorf("unexpected rejection %+v", r)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM usage_records`); n != 2 {
		t.Fatalf("%d records stored, want 2", n)
	}
	e.checkRollups(t)
}

func TestAtomicBatchIsAllOrNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	batch := items(record("a", nil), record("b", func(r *usage.Record) { r.OutputTokens = -1 }))
	res, err := e.svc.Ingest(context.Background(), batch, true)
	if err != nil || res.Accepted != 0 || len(res.Rejected) != 1 || res.Rejected[0].Field != "output_tokens" {
		t.Fatalf("%+v %v", res, err)
	}
	if n := e.count(t, `SELECT count(*) FROM usage_ids`); n != 0 {
		t.Fatalf("an atomic batch with a bad record stored %d ids", n)
	}
	res, err = e.svc.Ingest(context.Background(), batch[:1], true)
	if err != nil || res.Accepted != 1 {
		t.Fatalf("a clean atomic batch: %+v %v", res, err)
	}
}

func TestDuplicatesAreNeverCountedTwice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	batch := items(record("a", nil), record("b", nil), record("a", func(r *usage.Record) { r.OutputTokens = 9 }))
	res, err := e.svc.Ingest(context.Background(), batch, false)
	if err != nil || res.Accepted != 2 || res.Duplicates != 1 {
		t.Fatalf("first: %+v %v", res, err)
	}
	// A retry with another timestamp is still the same record.
	retry := items(record("a", func(r *usage.Record) { r.OccurredAt = r.OccurredAt.AddDate(0, 1, 0) }), record("b", nil))
	res, err = e.svc.Ingest(context.Background(), retry, false)
	if err != nil || res.Accepted != 0 || res.Duplicates != 2 {
		t.Fatalf("retry: %+v %v", res, err)
	}
	if n := e.count(t, `SELECT sum(records) FROM usage_daily`); n != 2 {
		t.Fatalf("rollups count %d records, want 2", n)
	}
	// A batch mixing known and new ids stores only the new, and only they
	// reach the rollups and the histograms.
	mixed := items(record("c", nil), record("b", nil), record("d", func(r *usage.Record) { r.InputTokens = 5000 }))
	res, err = e.svc.Ingest(context.Background(), mixed, false)
	if err != nil || res.Accepted != 2 || res.Duplicates != 1 {
		t.Fatalf("mixed: %+v %v", res, err)
	}
	if n := e.count(t, `SELECT count(*) FROM usage_records`); n != 4 {
		t.Fatalf("%d records stored, want 4", n)
	}
	if n := e.count(t, `SELECT sum(records) FROM usage_prompt_monthly`); n != 4 {
		t.Fatalf("the prompt-size histogram counts %d records, want 4", n)
	}
	e.checkRollups(t)
}

// TestConcurrentDuplicates sends the same batch from eight clients at once:
// every record is stored once, and the rollups still equal the records.
func TestConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var rs []usage.Record
	for i := range 200 {
		rs = append(rs, record(fmt.Sprintf("r%03d", i), func(r *usage.Record) {
			r.Workload = []string{"support-chat", "code-assistant"}[i%2]
			r.OccurredAt = r.OccurredAt.Add(time.Duration(i) * 7 * time.Hour)
			r.InputTokens = int64(100 + i)
			if i%3 != 0 { // some with latency and some with bloat, for the sums of both
				l := int64(100 + i)
				r.LatencyMS = &l
			}
			if i%4 == 0 {
				b := int64(i % 50)
				r.BloatTokens = &b
			}
		}))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted, dups := 0, 0
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each client sends the records in its own order.
			mine := append([]usage.Record(nil), rs...)
			for i := range mine {
				j := (i*31 + c*17) % len(mine)
				mine[i], mine[j] = mine[j], mine[i]
			}
			res, err := e.svc.Ingest(context.Background(), items(mine...), false)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			accepted += res.Accepted
			dups += res.Duplicates
			mu.Unlock()
		}()
	}
	wg.Wait()
	if accepted != 200 || dups != 7*200 {
		t.Fatalf("accepted %d duplicates %d, want 200 and 1400", accepted, dups)
	}
	if n := e.count(t, `SELECT count(*) FROM usage_records`); n != 200 {
		t.Fatalf("%d records stored", n)
	}
	e.checkRollups(t)
}

// TestStoredFLOPsAreTheEstimate: what ingest stores is the estimator's exact
// figure, also for a bucket, and the prompt itself is never stored.
func TestStoredFLOPsAreTheEstimate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prompt := "secret prompt text   \n\n\n\n  with padding  "
	batch := items(
		record("bucket", func(r *usage.Record) {
			r.Requests = 7
			r.InputTokens = 7003
			r.CachedInputTokens = 1001
			r.OutputTokens = 2101
		}),
		record("prompted", func(r *usage.Record) { r.Prompt = &prompt }),
	)
	if res, err := e.svc.Ingest(context.Background(), batch, false); err != nil || res.Accepted != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	m, _ := estimator.Lookup("llama-3.1-8b")
	want, err := estimator.Compute(m.Architecture, estimator.Request{InputTokens: 7003, CachedInputTokens: 1001, OutputTokens: 2101, Requests: 7})
	if err != nil {
		t.Fatal(err)
	}
	var pre, dec string
	var version int
	if err := e.db.QueryRow(context.Background(), `SELECT prefill_flops::text, decode_flops::text, model_version FROM usage_records WHERE id = 'bucket'`).Scan(&pre, &dec, &version); err != nil {
		t.Fatal(err)
	}
	if pre != want.Prefill.String() || dec != want.Decode.String() || version != 1 {
		t.Fatalf("stored %s/%s v%d, want %s/%s v1", pre, dec, version, want.Prefill, want.Decode)
	}
	a, _ := tokens.Analyze(bloat.O200kBase, prompt)
	if got := e.count(t, `SELECT bloat_tokens FROM usage_records WHERE id = 'prompted'`); got != int64(a.BloatTokens) || got == 0 {
		t.Fatalf("bloat_tokens %d, want %d", got, a.BloatTokens)
	}
	if n := e.count(t, `SELECT count(*) FROM usage_records r WHERE row_to_json(r)::text LIKE '%secret prompt%'`); n != 0 {
		t.Fatal("the prompt text was stored")
	}
}

// TestUnknownModelBackfill: records of a model nobody registered yet are
// kept and listed as unpriced; once the model is registered, backfill
// prices them exactly and adds them to the rollups.
func TestUnknownModelBackfill(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	var rs []usage.Record
	for i := range 12 {
		rs = append(rs, record(fmt.Sprintf("x%d", i), func(r *usage.Record) {
			r.Model = "claude-3-5-sonnet-20241022"
			r.OccurredAt = r.OccurredAt.AddDate(0, 0, i%3)
			l, b := int64(700+i), int64(i)
			r.LatencyMS, r.BloatTokens = &l, &b
		}))
	}
	rs = append(rs, record("known", nil))
	if res, err := e.svc.Ingest(ctx, items(rs...), false); err != nil || res.Accepted != 13 {
		t.Fatalf("%+v %v", res, err)
	}
	un, err := e.svc.Unpriced(ctx)
	if err != nil || len(un) != 1 || un[0].Model != "claude-3-5-sonnet-20241022" || un[0].Records != 12 {
		t.Fatalf("unpriced %+v %v", un, err)
	}
	if n := e.count(t, `SELECT sum(records) FROM usage_daily`); n != 1 {
		t.Fatalf("unpriced records must stay out of the rollups, got %d", n)
	}
	if n, err := e.svc.Backfill(ctx); err != nil || n != 0 {
		t.Fatalf("backfill of a still unknown model priced %d (%v)", n, err)
	}
	if _, _, err := e.models.Register(ctx, catalog.Registration{Name: "claude-3-5-sonnet-20241022", StandInFor: "llama-3.1-70b"}); err != nil {
		t.Fatal(err)
	}
	if n, err := e.svc.Backfill(ctx); err != nil || n != 12 {
		t.Fatalf("backfill priced %d (%v), want 12", n, err)
	}
	un, _ = e.svc.Unpriced(ctx)
	if len(un) != 0 {
		t.Fatalf("still unpriced: %+v", un)
	}
	m, _ := estimator.Lookup("llama-3.1-70b")
	one, _ := estimator.Compute(m.Architecture, estimator.Request{InputTokens: 150, OutputTokens: 400, Requests: 1})
	var sum string
	if err := e.db.QueryRow(ctx, `SELECT sum(prefill_flops + decode_flops)::text FROM usage_records WHERE model = 'claude-3-5-sonnet-20241022'`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if want := new(big.Int).Mul(one.Total, big.NewInt(12)); sum != want.String() {
		t.Fatalf("backfilled FLOPs %s, want %s", sum, want)
	}
	e.checkRollups(t)
}

func TestRollupKeepsOnlyGroupTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := e.svc.Ingest(context.Background(), items(record("a", nil), record("b", func(r *usage.Record) { r.Tags = nil })), false); err != nil {
		t.Fatal(err)
	}
	var tags []string
	rows, _ := e.db.Query(context.Background(), `SELECT tags::text FROM usage_daily ORDER BY 1`)
	tags, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || strings.Join(tags, " ") != `{"team": "care"} {}` {
		t.Fatalf("rollup tags %v %v", tags, err)
	}
}
