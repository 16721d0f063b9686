package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/store"
)

// TestRequestTimeoutAnswers503AndStopsTheQuery: a request whose query waits
// on a lock past RequestTimeout answers 503 "timeout" at the deadline, and
// its query is cancelled rather than left waiting in the database.
func TestRequestTimeoutAnswers503AndStopsTheQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, locker := pgtest.NewStoreAndConn(t)
	h := New(Options{Logger: testLogger(), Plans: st, Unavailable: store.IsUnavailable, RequestTimeout: 300 * time.Millisecond})

	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE plans IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w := do(h, "GET", "/v1/plans", "")
	took := time.Since(start)
	if w.Code != http.StatusServiceUnavailable || errorBody(t, w).Code != "timeout" {
		t.Fatalf("a request past its deadline: %d %s", w.Code, w.Body)
	}
	if took > 3*time.Second {
		t.Fatalf("the answer came after %s, not at the 300 ms deadline", took)
	}
	// The cancellation reaches PostgreSQL a moment after the answer.
	for waited := time.Duration(0); ; waited += 50 * time.Millisecond {
		var waiting int
		if err := locker.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()").Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			break
		}
		if waited > 5*time.Second {
			t.Fatalf("%d queries still wait on the lock 5 s after the request ended", waiting)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = tx.Rollback(ctx)
	if w := do(h, "GET", "/v1/plans", ""); w.Code != http.StatusOK {
		t.Fatalf("once the lock is gone: %d %s", w.Code, w.Body)
	}
}
