package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/usage"
)

// TestRetentionKeepsRollups drops the raw records of old months; the daily
// rollups keep their figures, and a replayed old id is still a duplicate.
func TestRetentionKeepsRollups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewStore(t)
	svc := usage.NewService(s, catalog.New(s), nil, usage.Options{})
	var items []usage.Item
	for i, month := range []time.Month{8, 9, 10} {
		for j := range 3 {
			items = append(items, usage.Item{Record: usage.Record{ID: fmt.Sprintf("m%d-%d", i, j), OccurredAt: time.Date(2026, month, 3, 0, 0, 0, 0, time.UTC),
				Workload: "w", Model: "gpt2", InputTokens: 10, OutputTokens: 5}})
		}
	}
	if res, err := svc.Ingest(ctx, items, false); err != nil || res.Accepted != 9 {
		t.Fatalf("%+v %v", res, err)
	}
	dropped, err := s.DropRawBefore(ctx, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(dropped) != 2 || dropped[0] != "usage_records_2026_08" || dropped[1] != "usage_records_2026_09" {
		t.Fatalf("dropped %v %v", dropped, err)
	}
	rows, err := s.Rollups(ctx, mustDate("2026-08-01"), mustDate("2026-11-01"))
	var records int64
	for _, r := range rows {
		records += r.Records
	}
	if err != nil || records != 9 {
		t.Fatalf("rollups hold %d records after retention, want 9 (%v)", records, err)
	}
	res, err := svc.Ingest(ctx, items[:1], false)
	if err != nil || res.Duplicates != 1 {
		t.Fatalf("a replayed old id: %+v %v", res, err)
	}
	// A late record for a dropped month recreates its partition.
	late := usage.Item{Record: usage.Record{ID: "late", OccurredAt: time.Date(2026, 8, 20, 0, 0, 0, 0, time.UTC), Workload: "w", Model: "gpt2", InputTokens: 10, OutputTokens: 5}}
	if res, err := svc.Ingest(ctx, []usage.Item{late}, false); err != nil || res.Accepted != 1 {
		t.Fatalf("late record: %+v %v", res, err)
	}
}
