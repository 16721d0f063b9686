package store

import (
	"context"
	"encoding/json"
	"fmt"
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
