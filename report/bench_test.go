package report_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/store"
)

// BenchmarkMakeMonthly makes and stores the monthly report of 1,000
// workloads: the rollups of 10 million records (1,000 workloads × 31 days
// × one model, each row summing ~320 records), as the ingest path leaves
// them, plus the previous month for the change column.
func BenchmarkMakeMonthly(b *testing.B) {
	url := pgtest.NewDatabase(b)
	ctx := context.Background()
	st, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `
		INSERT INTO usage_daily (workload, day, model, tags, records, requests, input_tokens, cached_input_tokens, output_tokens,
			prefill_flops, decode_flops, bloat_tokens, bloat_input_tokens)
		SELECT 'workload-' || w, d::date, 'llama-3.1-8b', jsonb_build_object('team', 'team-' || (w % 20)),
			323, 323, 323 * (100 + w), 0, 323 * 300, 323 * (100 + w) * 16000000000::numeric, 323 * 299 * 16000000000::numeric,
			CASE WHEN w % 7 = 0 THEN 323 * 10 ELSE 0 END, CASE WHEN w % 7 = 0 THEN 323 * (100 + w) ELSE 0 END
		FROM generate_series(1, 1000) w, generate_series('2026-09-01'::date, '2026-10-31'::date, '1 day') d`)
	if err != nil {
		b.Fatal(err)
	}
	seedPlans(b, st)
	m := newMaker(st)
	now := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	b.ResetTimer()
	for b.Loop() {
		rep, monthly, err := m.Make(ctx, report.MakeRequest{Month: "2026-10"}, "monthly", now)
		if err != nil || len(monthly.Rows) != 1000 || rep.ID == 0 {
			b.Fatalf("%d rows, %v", len(monthly.Rows), err)
		}
	}
}
