package store_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/usage"
)

// TestInsertRowsKeepsEveryCharacter: text that COPY's format must escape
// (tabs, newlines, backslashes, "\N") and JSON that must be escaped in tags
// comes back from the database exactly as sent, and a second insert of the
// same ids adds nothing.
func TestInsertRowsKeepsEveryCharacter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := pgtest.NewStoreAndConn(t)
	at := time.Date(2026, 10, 3, 4, 5, 6, 789_000_000, time.FixedZone("x", 2*3600))
	lat := int64(900)
	odd := []string{"tab\there", "line\nbreak", `back\slash`, `\N`, "cr\rlf", "quote\"s <&>", "café ☕", ""}
	var rows []usage.Row
	for i, text := range odd {
		id := "id-" + text
		rows = append(rows, usage.Row{
			Record: usage.Record{ID: id, OccurredAt: at, Workload: "w " + text, Model: "m", InputTokens: int64(i), OutputTokens: 1, Requests: 1,
				LatencyMS: &lat, Tags: map[string]string{"k " + text: "v " + text}},
			PrefillFLOPs: new(big.Int).Lsh(big.NewInt(int64(i+1)), 100), DecodeFLOPs: big.NewInt(7), ModelVersion: 2,
			RollupTags: map[string]string{},
		})
	}
	if n, err := s.InsertRows(ctx, rows); err != nil || n != len(rows) {
		t.Fatalf("insert: %d, %v", n, err)
	}
	if n, err := s.InsertRows(ctx, rows); err != nil || n != 0 {
		t.Fatalf("the same ids again must add nothing: %d, %v", n, err)
	}
	for _, r := range rows {
		var workload, prefill string
		var tags map[string]string
		var when time.Time
		err := db.QueryRow(ctx, `SELECT workload, tags, prefill_flops::text, occurred_at FROM usage_records WHERE id = $1`, r.Record.ID).
			Scan(&workload, &tags, &prefill, &when)
		if err != nil {
			t.Fatalf("%q: %v", r.Record.ID, err)
		}
		if workload != r.Record.Workload || len(tags) != 1 || tags[firstKey(r.Record.Tags)] != r.Record.Tags[firstKey(r.Record.Tags)] ||
			prefill != r.PrefillFLOPs.String() || !when.Equal(at) {
			t.Errorf("%q came back as %q %v %s %s", r.Record.ID, workload, tags, prefill, when)
		}
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}
