package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

const insertReport = `
INSERT INTO reports (kind, period_start, period_end, group_by, request_plan, flops_plan, body, csv, html, summary)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
RETURNING id, created_at`

// SaveReport stores a report and returns it with its id.
func (s *Store) SaveReport(ctx context.Context, r report.Stored) (report.Stored, error) {
	err := s.pool.QueryRow(ctx, insertReport, r.Kind, r.PeriodStart.Time(), r.PeriodEnd.Time(), r.GroupBy, r.RequestPlan, r.FLOPsPlan,
		r.Body, r.CSV, r.HTML, r.Summary).Scan(&r.ID, &r.CreatedAt)
	if err != nil {
		return report.Stored{}, fmt.Errorf("store: save report: %w", err)
	}
	return r, nil
}

const reportColumns = `id, kind, period_start, period_end, group_by, request_plan, flops_plan, body, csv, html, summary, created_at`

func scanReport(row pgx.Row) (report.Stored, error) {
	var r report.Stored
	var ps, pe time.Time
	err := row.Scan(&r.ID, &r.Kind, &ps, &pe, &r.GroupBy, &r.RequestPlan, &r.FLOPsPlan, &r.Body, &r.CSV, &r.HTML, &r.Summary, &r.CreatedAt)
	r.PeriodStart, r.PeriodEnd = billing.DateOf(ps), billing.DateOf(pe)
	return r, err
}

// Report returns the report with id.
func (s *Store) Report(ctx context.Context, id int64) (report.Stored, error) {
	r, err := scanReport(s.pool.QueryRow(ctx, `SELECT `+reportColumns+` FROM reports WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return report.Stored{}, fmt.Errorf("store: report %d: %w", id, report.ErrNotFound)
	}
	if err != nil {
		return report.Stored{}, fmt.Errorf("store: report %d: %w", id, err)
	}
	return r, nil
}

// Reports lists reports, newest period first, without their bodies.
func (s *Store) Reports(ctx context.Context, limit int) ([]report.Stored, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, kind, period_start, period_end, group_by, request_plan, flops_plan, '{}'::jsonb, '', '', summary, created_at
		FROM reports ORDER BY period_start DESC, id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reports: %w", err)
	}
	defer rows.Close()
	out := []report.Stored{}
	for rows.Next() {
		r, err := scanReport(rows)
		if err != nil {
			return nil, fmt.Errorf("store: reports: %w", err)
		}
		r.Body = nil
		out = append(out, r)
	}
	return out, rows.Err()
}

// claimRun inserts the run's row: the one instance whose insert succeeds
// runs it. A claim that never finished (its instance died) is taken over
// once it is older than stale.
const claimRun = `
INSERT INTO report_runs (schedule, period, claimed_by) VALUES ($1, $2, $3)
ON CONFLICT (schedule, period) DO UPDATE SET claimed_by = EXCLUDED.claimed_by, claimed_at = now(), error = NULL
    WHERE report_runs.finished_at IS NULL AND report_runs.claimed_at < now() - $4::interval
RETURNING true`

// ClaimRun claims a scheduled run of (schedule, period) for instance; false
// means another instance has it (or has done it).
func (s *Store) ClaimRun(ctx context.Context, schedule string, period billing.Date, instance string, stale time.Duration) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, claimRun, schedule, period.Time(), instance, fmt.Sprintf("%d seconds", int(stale.Seconds()))).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: claim run %s %s: %w", schedule, period, err)
	}
	return true, nil
}

// FinishRun records the end of a claimed run: the report made, or the error.
func (s *Store) FinishRun(ctx context.Context, schedule string, period billing.Date, reportID int64, runErr error) error {
	var id *int64
	if reportID > 0 {
		id = &reportID
	}
	var msg *string
	if runErr != nil {
		m := runErr.Error()
		msg = &m
	}
	_, err := s.pool.Exec(ctx, `UPDATE report_runs SET finished_at = now(), report_id = $3, error = $4 WHERE schedule = $1 AND period = $2`,
		schedule, period.Time(), id, msg)
	if err != nil {
		return fmt.Errorf("store: finish run %s %s: %w", schedule, period, err)
	}
	return nil
}

// RunDone says whether (schedule, period) has a finished run.
func (s *Store) RunDone(ctx context.Context, schedule string, period billing.Date) (bool, error) {
	var done bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM report_runs WHERE schedule = $1 AND period = $2 AND finished_at IS NOT NULL AND error IS NULL)`,
		schedule, period.Time()).Scan(&done)
	if err != nil {
		return false, fmt.Errorf("store: run %s %s: %w", schedule, period, err)
	}
	return done, nil
}

const insertDelivery = `
INSERT INTO deliveries (report_id, alert_id, channel, kind, try, at, took_ms, ok, final, error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULLIF($10, ''))`

// RecordDelivery logs one delivery attempt of a report (reportID) or an
// alert (alertID); the other id is 0.
func (s *Store) RecordDelivery(ctx context.Context, reportID, alertID int64, d report.Delivery) error {
	var rid, aid *int64
	if reportID > 0 {
		rid = &reportID
	}
	if alertID > 0 {
		aid = &alertID
	}
	_, err := s.pool.Exec(ctx, insertDelivery, rid, aid, d.Channel, d.Kind, d.Try, d.At, d.TookMS, d.OK, d.Final, d.Error)
	if err != nil {
		return fmt.Errorf("store: record delivery: %w", err)
	}
	return nil
}

// Deliveries lists the delivery attempts of a report, oldest first.
func (s *Store) Deliveries(ctx context.Context, reportID int64) ([]report.Delivery, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, channel, kind, try, at, took_ms, ok, final, coalesce(error, '') FROM deliveries WHERE report_id = $1 ORDER BY id`, reportID)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[report.Delivery])
	if err != nil {
		return nil, fmt.Errorf("store: deliveries: %w", err)
	}
	return out, nil
}

// latencyHistogram reads the latency histogram of a month, per group.
const latencyHistogram = `
SELECT CASE WHEN $2::text = '' THEN workload ELSE coalesce(tags->>$2, '(untagged)') END, bucket, sum(n)
FROM usage_latency_monthly WHERE month = $1
GROUP BY 1, 2 ORDER BY 1, 2`

// LatencyStats returns p50 and p99 latency per group for the month that
// starts on month, from the histogram kept at ingest (within about 5%: a
// percentile is reported as the geometric middle of its 10%-wide bucket).
// groupBy is "workload" or "tag:NAME".
func (s *Store) LatencyStats(ctx context.Context, month billing.Date, groupBy string) (map[string]report.LatencyStats, error) {
	tag := ""
	if len(groupBy) > 4 && groupBy[:4] == "tag:" {
		tag = groupBy[4:]
	}
	rows, err := s.pool.Query(ctx, latencyHistogram, month.Time(), tag)
	if err != nil {
		return nil, fmt.Errorf("store: latency: %w", err)
	}
	defer rows.Close()
	hist := map[string][][2]int64{}
	for rows.Next() {
		var k string
		var b, n int64
		if err := rows.Scan(&k, &b, &n); err != nil {
			return nil, fmt.Errorf("store: latency: %w", err)
		}
		hist[k] = append(hist[k], [2]int64{b, n})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: latency: %w", err)
	}
	out := map[string]report.LatencyStats{}
	for k, h := range hist {
		out[k] = percentiles(h)
	}
	return out, nil
}

// percentiles reads p50 and p99 off a histogram of (bucket, count) in
// bucket order: the first bucket whose cumulative count reaches the rank.
func percentiles(h [][2]int64) report.LatencyStats {
	var total int64
	for _, b := range h {
		total += b[1]
	}
	at := func(q float64) float64 {
		rank := int64(math.Ceil(q * float64(total)))
		var cum int64
		for _, b := range h {
			cum += b[1]
			if cum >= rank {
				return math.Pow(1.1, float64(b[0])+0.5) - 1
			}
		}
		return 0
	}
	return report.LatencyStats{Records: total, P50MS: math.Round(at(0.5)*10) / 10, P99MS: math.Round(at(0.99)*10) / 10}
}
