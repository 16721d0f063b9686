package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/pgtest"
)

// TestAlertSchemaKeys: the schema alone refuses a second unresolved alert
// of a workload and kind, and a second alert of the same window, whatever
// the code above it does.
func TestAlertSchemaKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, db := pgtest.NewStoreAndConn(t)
	now := time.Date(2026, 10, 6, 0, 30, 0, 0, time.UTC)
	day := alert.DayWindow(now)
	a := alert.Alert{Workload: "w", Kind: alert.WhitespaceBloat, WindowStart: day.Start, WindowEnd: day.End,
		Sentence: "s", Fix: "f", Evidence: alert.Evidence{Window: day}}
	opened, err := st.SaveAlertEvaluation(ctx, alert.Evaluation{Now: now, Day: day, Fired: []alert.Alert{a}})
	if err != nil || len(opened) != 1 {
		t.Fatalf("save: %v, %+v", err, opened)
	}
	id := opened[0].ID

	insert := func(start time.Time) error {
		_, err := db.Exec(ctx, `INSERT INTO alerts (workload, kind, window_start, window_end, sentence, evidence, cost, fix, opened_at, last_evaluated_at)
VALUES ('w', 'whitespace_bloat', $1, $2, 's', '{}', '{}', 'f', now(), now())`, start, start.Add(24*time.Hour))
		return err
	}
	unique := func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code == "23505"
	}
	if err := insert(day.End); !unique(err) {
		t.Errorf("a second open alert of a later window: %v, want a unique violation", err)
	}
	if _, err := st.MoveAlert(ctx, id, []alert.State{alert.Open}, alert.Resolved, now); err != nil {
		t.Fatal(err)
	}
	if err := insert(day.Start); !unique(err) {
		t.Errorf("a second alert of the same window: %v, want a unique violation", err)
	}
	if err := insert(day.End); err != nil {
		t.Errorf("a later window once the first is resolved: %v", err)
	}
}
