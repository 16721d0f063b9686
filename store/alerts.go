package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/alert"
)

// alertColumns are the columns scanAlert reads, in its order.
const alertColumns = `id, workload, kind, window_start, window_end, state, sentence, evidence, cost, fix,
    opened_at, acknowledged_at, resolved_at, coalesce(resolved_by, ''), last_evaluated_at`

func scanAlert(row pgx.CollectableRow) (alert.Alert, error) {
	var a alert.Alert
	var kind, state string
	var evidence, cost []byte
	if err := row.Scan(&a.ID, &a.Workload, &kind, &a.WindowStart, &a.WindowEnd, &state, &a.Sentence, &evidence, &cost, &a.Fix,
		&a.OpenedAt, &a.AcknowledgedAt, &a.ResolvedAt, &a.ResolvedBy, &a.LastEvaluatedAt); err != nil {
		return alert.Alert{}, err
	}
	a.Kind, a.State = alert.Kind(kind), alert.State(state)
	if err := json.Unmarshal(evidence, &a.Evidence); err != nil {
		return alert.Alert{}, fmt.Errorf("alert %d: evidence: %w", a.ID, err)
	}
	if err := json.Unmarshal(cost, &a.Cost); err != nil {
		return alert.Alert{}, fmt.Errorf("alert %d: cost: %w", a.ID, err)
	}
	// pgx returns timestamptz in the local zone; the domain is UTC.
	for _, t := range []*time.Time{&a.WindowStart, &a.WindowEnd, &a.OpenedAt, &a.LastEvaluatedAt, a.AcknowledgedAt, a.ResolvedAt} {
		if t != nil {
			*t = t.UTC()
		}
	}
	return a, nil
}

// lockAlertEvaluation serialises evaluations across instances for the
// length of the transaction, so that a second one sees what the first
// saved; the unique indexes of the table back it up.
const lockAlertEvaluation = `SELECT pg_advisory_xact_lock(hashtext('flopledger.alerts'))`

// resolveEndedBudgets resolves the budget alerts whose month is over.
const resolveEndedBudgets = `
UPDATE alerts SET state = 'resolved', resolved_at = $1, resolved_by = 'auto', last_evaluated_at = $1
WHERE state <> 'resolved' AND kind = ANY($2) AND window_end <= $1`

// resolveClearedBudgets resolves the alerts of budget windows evaluated
// below their threshold.
const resolveClearedBudgets = `
UPDATE alerts a SET state = 'resolved', resolved_at = $1, resolved_by = 'auto', last_evaluated_at = $1
FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS c(workload, kind, window_start)
WHERE a.state <> 'resolved' AND a.workload = c.workload AND a.kind = c.kind AND a.window_start = c.window_start`

// resolveClearedData resolves the data alerts that did not fire over a
// whole window after their last crossing one: $3 is the evaluated day's
// start, $4 and $5 the (workload, kind) pairs that fired.
const resolveClearedData = `
UPDATE alerts SET state = 'resolved', resolved_at = $1, resolved_by = 'auto', last_evaluated_at = $1
WHERE state <> 'resolved' AND kind = ANY($2) AND window_end <= $3
  AND (workload, kind) NOT IN (SELECT * FROM unnest($4::text[], $5::text[]))`

// upsertAlert refreshes the open alert of the workload and kind when its
// window does not end after this one, or else opens a new alert unless one
// is still open or an alert of any state already covers this window. The
// refresh runs even though the INSERT does not read it; the NOT EXISTS sees
// the table as it was before the refresh. ON CONFLICT DO NOTHING covers
// both unique keys, should the advisory lock ever be bypassed.
const upsertAlert = `
WITH refreshed AS (
    UPDATE alerts SET window_end = $4, sentence = $5, evidence = $6, cost = $7, fix = $8, last_evaluated_at = $9
    WHERE workload = $1 AND kind = $2 AND state <> 'resolved' AND window_start <= $3 AND window_end <= $4
    RETURNING id
)
INSERT INTO alerts (workload, kind, window_start, window_end, state, sentence, evidence, cost, fix, opened_at, last_evaluated_at)
SELECT $1, $2, $3, $4, 'open', $5, $6, $7, $8, $9, $9
WHERE NOT EXISTS (
    SELECT 1 FROM alerts
    WHERE workload = $1 AND kind = $2 AND (state <> 'resolved' OR (window_start <= $3 AND window_end >= $4)))
ON CONFLICT DO NOTHING
RETURNING ` + alertColumns

// SaveAlertEvaluation implements alert.Store.
func (s *Store) SaveAlertEvaluation(ctx context.Context, e alert.Evaluation) ([]alert.Alert, error) {
	dataKinds, budgetKinds := kindStrings(alert.DataKinds), kindStrings(alert.BudgetKinds)
	var firedW, firedK []string
	for _, a := range e.Fired {
		firedW, firedK = append(firedW, a.Workload), append(firedK, string(a.Kind))
	}
	clearedW, clearedK, clearedAt := make([]string, len(e.Cleared)), make([]string, len(e.Cleared)), make([]time.Time, len(e.Cleared))
	for i, k := range e.Cleared {
		clearedW[i], clearedK[i], clearedAt[i] = k.Workload, string(k.Kind), k.WindowStart
	}
	var opened []alert.Alert
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockAlertEvaluation); err != nil {
			return err
		}
		// Resolve before refreshing, so that an ended month's alert makes
		// way for the new month's.
		if _, err := tx.Exec(ctx, resolveEndedBudgets, e.Now, budgetKinds); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, resolveClearedBudgets, e.Now, clearedW, clearedK, clearedAt); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, resolveClearedData, e.Now, dataKinds, e.Day.Start, firedW, firedK); err != nil {
			return err
		}
		for _, a := range e.Fired {
			evidence, err := json.Marshal(a.Evidence)
			if err != nil {
				return err
			}
			cost, err := json.Marshal(a.Cost)
			if err != nil {
				return err
			}
			rows, _ := tx.Query(ctx, upsertAlert, a.Workload, string(a.Kind), a.WindowStart, a.WindowEnd,
				a.Sentence, string(evidence), string(cost), a.Fix, e.Now)
			got, err := pgx.CollectRows(rows, scanAlert)
			if err != nil {
				return fmt.Errorf("%s %s: %w", a.Workload, a.Kind, err)
			}
			opened = append(opened, got...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: save alert evaluation: %w", err)
	}
	return opened, nil
}

func kindStrings(ks []alert.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

const selectAlerts = `
SELECT ` + alertColumns + ` FROM alerts
WHERE ($1 = '' OR state = $1) AND ($2 = '' OR workload = $2)
ORDER BY opened_at DESC, id DESC`

// Alerts implements alert.Store.
func (s *Store) Alerts(ctx context.Context, f alert.Filter) ([]alert.Alert, error) {
	rows, _ := s.pool.Query(ctx, selectAlerts, string(f.State), f.Workload)
	out, err := pgx.CollectRows(rows, scanAlert)
	if err != nil {
		return nil, fmt.Errorf("store: alerts: %w", err)
	}
	return out, nil
}

const selectAlert = `SELECT ` + alertColumns + ` FROM alerts WHERE id = $1`

// Alert implements alert.Store.
func (s *Store) Alert(ctx context.Context, id int64) (alert.Alert, error) {
	rows, _ := s.pool.Query(ctx, selectAlert, id)
	a, err := pgx.CollectExactlyOneRow(rows, scanAlert)
	if errors.Is(err, pgx.ErrNoRows) {
		return alert.Alert{}, fmt.Errorf("store: alert %d: %w", id, alert.ErrNotFound)
	}
	if err != nil {
		return alert.Alert{}, fmt.Errorf("store: alert %d: %w", id, err)
	}
	return a, nil
}

// moveAlert changes the state only from one of the states $3, so that two
// users acting at once cannot both succeed; the timestamps of the new state
// are set with it.
const moveAlert = `
UPDATE alerts SET state = $2,
    acknowledged_at = CASE WHEN $2 = 'acknowledged' THEN $4 ELSE acknowledged_at END,
    resolved_at     = CASE WHEN $2 = 'resolved' THEN $4 ELSE resolved_at END,
    resolved_by     = CASE WHEN $2 = 'resolved' THEN 'user' ELSE resolved_by END
WHERE id = $1 AND state = ANY($3)
RETURNING ` + alertColumns

// MoveAlert implements alert.Store.
func (s *Store) MoveAlert(ctx context.Context, id int64, from []alert.State, to alert.State, now time.Time) (alert.Alert, error) {
	states := make([]string, len(from))
	for i, st := range from {
		states[i] = string(st)
	}
	rows, _ := s.pool.Query(ctx, moveAlert, id, string(to), states, now)
	a, err := pgx.CollectExactlyOneRow(rows, scanAlert)
	if err == nil {
		return a, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return alert.Alert{}, fmt.Errorf("store: alert %d to %s: %w", id, to, err)
	}
	// Nothing moved: say whether the alert is missing or elsewhere.
	var state string
	err = s.pool.QueryRow(ctx, `SELECT state FROM alerts WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return alert.Alert{}, fmt.Errorf("store: alert %d: %w", id, alert.ErrNotFound)
	}
	if err != nil {
		return alert.Alert{}, fmt.Errorf("store: alert %d to %s: %w", id, to, err)
	}
	return alert.Alert{}, fmt.Errorf("store: alert %d is %s, cannot become %s (only from %v): %w", id, state, to, from, alert.ErrState)
}
