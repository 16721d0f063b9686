package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/usage"
)

// addToRollup adds a new rollup row's sums to an existing one: the upsert
// of usage_daily that ingest and backfill share (the target is aliased d).
const addToRollup = `ON CONFLICT (workload, day, model, tags) DO UPDATE SET
    records             = d.records + EXCLUDED.records,
    requests            = d.requests + EXCLUDED.requests,
    input_tokens        = d.input_tokens + EXCLUDED.input_tokens,
    cached_input_tokens = d.cached_input_tokens + EXCLUDED.cached_input_tokens,
    output_tokens       = d.output_tokens + EXCLUDED.output_tokens,
    prefill_flops       = d.prefill_flops + EXCLUDED.prefill_flops,
    decode_flops        = d.decode_flops + EXCLUDED.decode_flops,
    bloat_tokens        = d.bloat_tokens + EXCLUDED.bloat_tokens,
    bloat_input_tokens  = d.bloat_input_tokens + EXCLUDED.bloat_input_tokens,
    latency_records     = d.latency_records + EXCLUDED.latency_records,
    latency_ms_sum      = d.latency_ms_sum + EXCLUDED.latency_ms_sum`

// insertRows stores a batch in one statement: the new ids claim their
// place in usage_ids (a concurrent batch carrying the same id waits on the
// unique index and then finds it taken), only those rows go into
// usage_records, and their priced part is added to the daily rollups, in
// key order so that concurrent batches lock rollup rows in the same order.
const insertRows = `
WITH batch AS (
    SELECT * FROM unnest(
        $1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[],
        $8::bigint[], $9::bigint[], $10::bigint[], $11::jsonb[], $12::bigint[], $13::numeric[], $14::numeric[],
        $15::integer[], $16::jsonb[], $17::smallint[], $18::smallint[])
    AS b(id, occurred_at, workload, model, input_tokens, cached_input_tokens, output_tokens,
         requests, latency_ms, ttft_ms, tags, bloat_tokens, prefill_flops, decode_flops,
         model_version, rollup_tags, latency_bucket, prompt_bucket)
),
fresh AS (
    INSERT INTO usage_ids (id, occurred_at)
    SELECT id, occurred_at FROM batch ORDER BY id
    ON CONFLICT (id) DO NOTHING
    RETURNING id
),
stored AS (
    INSERT INTO usage_records (id, occurred_at, workload, model, input_tokens, cached_input_tokens, output_tokens,
        requests, latency_ms, ttft_ms, tags, bloat_tokens, prefill_flops, decode_flops, model_version)
    SELECT b.id, b.occurred_at, b.workload, b.model, b.input_tokens, b.cached_input_tokens, b.output_tokens,
        b.requests, b.latency_ms, b.ttft_ms, b.tags, b.bloat_tokens, b.prefill_flops, b.decode_flops, b.model_version
    FROM batch b JOIN fresh USING (id)
    RETURNING 1
),
rolled AS (
    INSERT INTO usage_daily AS d (workload, day, model, tags, records, requests, input_tokens, cached_input_tokens,
        output_tokens, prefill_flops, decode_flops, bloat_tokens, bloat_input_tokens, latency_records, latency_ms_sum)
    SELECT b.workload, (b.occurred_at AT TIME ZONE 'UTC')::date, b.model, b.rollup_tags,
        count(*), sum(b.requests), sum(b.input_tokens), sum(b.cached_input_tokens), sum(b.output_tokens),
        sum(b.prefill_flops), sum(b.decode_flops),
        coalesce(sum(b.bloat_tokens), 0), coalesce(sum(b.input_tokens) FILTER (WHERE b.bloat_tokens IS NOT NULL), 0),
        count(b.latency_ms), coalesce(sum(b.latency_ms), 0)
    FROM batch b JOIN fresh USING (id)
    WHERE b.prefill_flops IS NOT NULL
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ` + addToRollup + `
    RETURNING 1
),
latency AS (
    INSERT INTO usage_latency_monthly AS l (workload, month, tags, bucket, n)
    SELECT b.workload, date_trunc('month', b.occurred_at AT TIME ZONE 'UTC')::date, b.rollup_tags,
        b.latency_bucket, count(*)
    FROM batch b JOIN fresh USING (id)
    WHERE b.latency_ms IS NOT NULL
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (workload, month, tags, bucket) DO UPDATE SET n = l.n + EXCLUDED.n
    RETURNING 1
),
prompts AS (
    INSERT INTO usage_prompt_monthly AS p (workload, month, bucket, records, requests)
    SELECT b.workload, date_trunc('month', b.occurred_at AT TIME ZONE 'UTC')::date,
        b.prompt_bucket, count(*), sum(b.requests)
    FROM batch b JOIN fresh USING (id)
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
    ON CONFLICT (workload, month, bucket) DO UPDATE SET records = p.records + EXCLUDED.records, requests = p.requests + EXCLUDED.requests
    RETURNING 1
)
SELECT (SELECT count(*) FROM stored)`

// columns holds a batch as the arrays insertRows takes.
type columns struct {
	id, workload, model             []string
	occurredAt                      []time.Time
	input, cached, output, requests []int64
	latency, ttft, bloat            []*int64
	tags, rollupTags                [][]byte
	latencyBucket                   []*int16
	promptBucket                    []int16
	prefill, decode                 []*string
	version                         []*int32
}

func toColumns(rows []usage.Row) (columns, error) {
	n := len(rows)
	c := columns{
		id: make([]string, n), workload: make([]string, n), model: make([]string, n), occurredAt: make([]time.Time, n),
		input: make([]int64, n), cached: make([]int64, n), output: make([]int64, n), requests: make([]int64, n),
		latency: make([]*int64, n), ttft: make([]*int64, n), bloat: make([]*int64, n),
		tags: make([][]byte, n), rollupTags: make([][]byte, n),
		prefill: make([]*string, n), decode: make([]*string, n), version: make([]*int32, n),
		latencyBucket: make([]*int16, n), promptBucket: make([]int16, n),
	}
	for i, row := range rows {
		r := row.Record
		c.id[i], c.workload[i], c.model[i], c.occurredAt[i] = r.ID, r.Workload, r.Model, r.OccurredAt
		c.input[i], c.cached[i], c.output[i], c.requests[i] = r.InputTokens, r.CachedInputTokens, r.OutputTokens, r.Requests
		c.latency[i], c.ttft[i], c.bloat[i] = r.LatencyMS, r.TTFTMS, r.BloatTokens
		if r.LatencyMS != nil {
			b := latencyBucket(*r.LatencyMS)
			c.latencyBucket[i] = &b
		}
		c.promptBucket[i] = promptBucket(r.InputTokens, r.Requests)
		tags := r.Tags
		if tags == nil {
			tags = map[string]string{}
		}
		var err error
		if c.tags[i], err = json.Marshal(tags); err != nil {
			return columns{}, err
		}
		if c.rollupTags[i], err = json.Marshal(row.RollupTags); err != nil {
			return columns{}, err
		}
		if row.PrefillFLOPs != nil {
			p, d, v := row.PrefillFLOPs.String(), row.DecodeFLOPs.String(), int32(row.ModelVersion)
			c.prefill[i], c.decode[i], c.version[i] = &p, &d, &v
		}
	}
	return c, nil
}

// InsertRows implements usage.Store.
func (s *Store) InsertRows(ctx context.Context, rows []usage.Row) (int, error) {
	if err := s.ensurePartitions(ctx, rows); err != nil {
		return 0, err
	}
	c, err := toColumns(rows)
	if err != nil {
		return 0, fmt.Errorf("store: insert usage: %w", err)
	}
	var n int
	err = s.pool.QueryRow(ctx, insertRows, c.id, c.occurredAt, c.workload, c.model, c.input, c.cached, c.output,
		c.requests, c.latency, c.ttft, c.tags, c.bloat, c.prefill, c.decode, c.version, c.rollupTags, c.latencyBucket, c.promptBucket).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: insert usage: %w", err)
	}
	return n, nil
}

// partitions remembers the months whose partition is known to exist, so
// that the ingest path asks PostgreSQL only for new months.
var partitions sync.Map

// ensurePartitions creates the monthly partitions the rows need. It runs
// before the batch, in transactions of its own, under an advisory lock, so
// that the DDL's lock on the parent table is held for a moment only.
func (s *Store) ensurePartitions(ctx context.Context, rows []usage.Row) error {
	months := map[time.Time]bool{}
	for _, r := range rows {
		t := r.Record.OccurredAt.UTC()
		m := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		if _, ok := partitions.Load(s.partitionKey(m)); !ok {
			months[m] = true
		}
	}
	for m := range months {
		name := fmt.Sprintf("usage_records_%04d_%02d", m.Year(), int(m.Month()))
		ddl := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s PARTITION OF usage_records FOR VALUES FROM ('%s') TO ('%s')`,
			pgx.Identifier{name}.Sanitize(), m.Format(time.RFC3339), m.AddDate(0, 1, 0).Format(time.RFC3339))
		err := s.InTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('flopledger.partitions'))`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, ddl)
			return err
		})
		if err != nil {
			return fmt.Errorf("store: create partition %s: %w", name, err)
		}
		partitions.Store(s.partitionKey(m), true)
	}
	return nil
}

// partitionKey scopes the cache to this pool's database, since tests run
// many databases in one process.
func (s *Store) partitionKey(m time.Time) string {
	cfg := s.pool.Config().ConnConfig
	return fmt.Sprintf("%s/%s/%s/%s", cfg.Host, cfg.Database, cfg.User, m.Format("2006-01"))
}

const selectUnpriced = `
SELECT model, count(*) FROM usage_records WHERE prefill_flops IS NULL GROUP BY model ORDER BY model`

// UnpricedModels implements usage.Store.
func (s *Store) UnpricedModels(ctx context.Context) ([]usage.Unpriced, error) {
	rows, _ := s.pool.Query(ctx, selectUnpriced)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[usage.Unpriced])
	if err != nil {
		return nil, fmt.Errorf("store: unpriced models: %w", err)
	}
	return out, nil
}

const lockUnpriced = `
SELECT id, occurred_at, workload, model, input_tokens, cached_input_tokens, output_tokens, requests,
       latency_ms, ttft_ms, tags, bloat_tokens
FROM usage_records WHERE model = $1 AND prefill_flops IS NULL
ORDER BY occurred_at, id
LIMIT $2
FOR UPDATE SKIP LOCKED`

// priceRows writes the FLOPs of rows that were unpriced and adds them to
// the rollups; the rows are locked by the caller's transaction.
const priceRows = `
WITH batch AS (
    SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::numeric[], $4::numeric[], $5::integer[], $6::jsonb[])
    AS b(id, occurred_at, prefill_flops, decode_flops, model_version, rollup_tags)
),
priced AS (
    UPDATE usage_records r SET prefill_flops = b.prefill_flops, decode_flops = b.decode_flops, model_version = b.model_version
    FROM batch b WHERE r.id = b.id AND r.occurred_at = b.occurred_at AND r.prefill_flops IS NULL
    RETURNING r.*, b.rollup_tags
)
INSERT INTO usage_daily AS d (workload, day, model, tags, records, requests, input_tokens, cached_input_tokens,
    output_tokens, prefill_flops, decode_flops, bloat_tokens, bloat_input_tokens, latency_records, latency_ms_sum)
SELECT p.workload, (p.occurred_at AT TIME ZONE 'UTC')::date, p.model, p.rollup_tags,
    count(*), sum(p.requests), sum(p.input_tokens), sum(p.cached_input_tokens), sum(p.output_tokens),
    sum(p.prefill_flops), sum(p.decode_flops),
    coalesce(sum(p.bloat_tokens), 0), coalesce(sum(p.input_tokens) FILTER (WHERE p.bloat_tokens IS NOT NULL), 0),
    count(p.latency_ms), coalesce(sum(p.latency_ms), 0)
FROM priced p
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
` + addToRollup + ``

// PriceUnpriced implements usage.Store.
func (s *Store) PriceUnpriced(ctx context.Context, model string, limit int, price func([]usage.Row) error) (int, error) {
	var n int
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rs, err := tx.Query(ctx, lockUnpriced, model, limit)
		if err != nil {
			return err
		}
		var rows []usage.Row
		for rs.Next() {
			var r usage.Record
			var tags []byte
			if err := rs.Scan(&r.ID, &r.OccurredAt, &r.Workload, &r.Model, &r.InputTokens, &r.CachedInputTokens, &r.OutputTokens,
				&r.Requests, &r.LatencyMS, &r.TTFTMS, &tags, &r.BloatTokens); err != nil {
				rs.Close()
				return err
			}
			if err := json.Unmarshal(tags, &r.Tags); err != nil {
				rs.Close()
				return err
			}
			rows = append(rows, usage.Row{Record: r})
		}
		if err := rs.Err(); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		if err := price(rows); err != nil {
			return err
		}
		ids, at := make([]string, len(rows)), make([]time.Time, len(rows))
		pre, dec := make([]string, len(rows)), make([]string, len(rows))
		ver, rt := make([]int32, len(rows)), make([][]byte, len(rows))
		for i, r := range rows {
			ids[i], at[i] = r.Record.ID, r.Record.OccurredAt
			pre[i], dec[i], ver[i] = r.PrefillFLOPs.String(), r.DecodeFLOPs.String(), int32(r.ModelVersion)
			if rt[i], err = json.Marshal(r.RollupTags); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, priceRows, ids, at, pre, dec, ver, rt); err != nil {
			return err
		}
		n = len(rows)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: price unpriced %q: %w", model, err)
	}
	return n, nil
}

// latencyBucket is the histogram bucket of a latency: b such that
// 1.1^b − 1 ≤ ms < 1.1^(b+1) − 1 (10% wide; see usage_latency_monthly).
// It is computed here rather than in SQL, where ln() on numeric is slow.
func latencyBucket(ms int64) int16 {
	return int16(math.Floor(math.Log1p(float64(max(ms, 0))) / math.Log(1.1)))
}

// promptBucket is the prompt-size bucket of a record: b such that the mean
// prompt per request is in [2^b, 2^(b+1)) tokens (exact, by bit length).
func promptBucket(input, requests int64) int16 {
	mean := input / max(requests, 1)
	return int16(max(bits.Len64(uint64(max(mean, 1)))-1, 0))
}
