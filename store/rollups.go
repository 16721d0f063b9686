package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

const selectRollups = `
SELECT day, workload, model, tags, records, requests, input_tokens, cached_input_tokens, output_tokens,
       prefill_flops, decode_flops, bloat_tokens, bloat_input_tokens, latency_records, latency_ms_sum
FROM usage_daily WHERE day >= $1 AND day < $2`

// Rollups implements report.Store.
func (s *Store) Rollups(ctx context.Context, from, to billing.Date) ([]report.Rollup, error) {
	rows, err := s.pool.Query(ctx, selectRollups, from.Time(), to.Time())
	if err != nil {
		return nil, fmt.Errorf("store: rollups: %w", err)
	}
	return scanRollups(rows)
}

func scanRollups(rows pgx.Rows) ([]report.Rollup, error) {
	defer rows.Close()
	var out []report.Rollup
	for rows.Next() {
		var r report.Rollup
		var day time.Time
		var tags []byte
		if err := rows.Scan(&day, &r.Workload, &r.Model, &tags, &r.Records, &r.Requests, &r.InputTokens, &r.CachedTokens,
			&r.OutputTokens, &r.PrefillFLOPs, &r.DecodeFLOPs, &r.BloatTokens, &r.BloatInputTokens, &r.LatencyRecords, &r.LatencyMSSum); err != nil {
			return nil, fmt.Errorf("store: rollups: %w", err)
		}
		r.Day = billing.DateOf(day)
		if err := json.Unmarshal(tags, &r.Tags); err != nil {
			return nil, fmt.Errorf("store: rollups: tags: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: rollups: %w", err)
	}
	return out, nil
}

const selectUnknownModels = `
SELECT model, count(*) FROM usage_records
WHERE prefill_flops IS NULL AND occurred_at >= $1 AND occurred_at < $2
GROUP BY model ORDER BY model`

// UnknownModels implements report.Store.
func (s *Store) UnknownModels(ctx context.Context, from, to billing.Date) ([]report.Unpriced, error) {
	rows, err := s.pool.Query(ctx, selectUnknownModels, from.Time(), to.Time())
	if err != nil {
		return nil, fmt.Errorf("store: unknown models: %w", err)
	}
	defer rows.Close()
	var out []report.Unpriced
	for rows.Next() {
		u := report.Unpriced{Reason: "unknown model: register it (POST /v1/models) and its records are priced"}
		if err := rows.Scan(&u.Model, &u.Records); err != nil {
			return nil, fmt.Errorf("store: unknown models: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

const selectPromptSizes = `
SELECT bucket, records, requests FROM usage_prompt_monthly WHERE workload = $1 AND month = $2 ORDER BY bucket`

// PromptSizes returns the prompt-size histogram of a workload's month.
func (s *Store) PromptSizes(ctx context.Context, workload string, month billing.Date) ([]report.PromptBucket, error) {
	rows, _ := s.pool.Query(ctx, selectPromptSizes, workload, month.Time())
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[report.PromptBucket])
	if err != nil {
		return nil, fmt.Errorf("store: prompt sizes: %w", err)
	}
	return out, nil
}

// selectRollupSums adds up the rollups of [from, to) per workload, model
// and tags within each price period: the days between two consecutive
// boundaries (the plan versions' dates) are priced alike, and pricing is
// linear, so their sums price exactly as the days would one by one. Each
// row's day is its period's first day in the range.
const selectRollupSums = `
WITH r AS (
    SELECT *, width_bucket(day, $3::date[]) AS p FROM usage_daily WHERE day >= $1 AND day < $2
)
SELECT CASE WHEN p = 0 THEN $1::date ELSE greatest(($3::date[])[p], $1::date) END,
       workload, model, tags, sum(records)::bigint, sum(requests), sum(input_tokens), sum(cached_input_tokens),
       sum(output_tokens), sum(prefill_flops), sum(decode_flops), sum(bloat_tokens), sum(bloat_input_tokens),
       sum(latency_records)::bigint, sum(latency_ms_sum)
FROM r
GROUP BY 1, workload, model, tags`

// RollupSums implements report.Store: the rollups of [from, to) summed
// within each period between boundaries (sorted or not; duplicates are
// fine).
func (s *Store) RollupSums(ctx context.Context, from, to billing.Date, boundaries []billing.Date) ([]report.Rollup, error) {
	b := []time.Time{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)} // width_bucket needs a non-empty array
	for _, d := range boundaries {
		b = append(b, d.Time())
	}
	slices.SortFunc(b, func(x, y time.Time) int { return x.Compare(y) })
	b = slices.Compact(b)
	rows, err := s.pool.Query(ctx, selectRollupSums, from.Time(), to.Time(), b)
	if err != nil {
		return nil, fmt.Errorf("store: rollup sums: %w", err)
	}
	return scanRollups(rows)
}
