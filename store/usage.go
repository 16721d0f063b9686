package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/flopledger/flopledger/usage"
)

// insertIDs claims the batch's ids in usage_ids, the idempotency key: an
// id seen before is skipped, and a concurrent batch carrying the same id
// waits on the unique index and then finds it taken. Ids are inserted in
// order so that two such batches lock them in one order.
const insertIDs = `
INSERT INTO usage_ids (id, occurred_at)
SELECT * FROM unnest($1::text[], $2::timestamptz[]) ORDER BY 1
ON CONFLICT (id) DO NOTHING
RETURNING id`

// insertNewIDs is insertIDs for a batch whose ids are all new, the usual
// case: a plain INSERT costs PostgreSQL about half of ON CONFLICT's
// speculative insertion. A known id fails it with a unique violation.
const insertNewIDs = `
INSERT INTO usage_ids (id, occurred_at) SELECT * FROM unnest($1::text[], $2::timestamptz[]) ORDER BY 1`

// copyRecords loads rows into usage_records in COPY's text format, which
// the rows are written into directly (see copyText): the generic binary
// encoding of pgx's CopyFrom cost more Go time than the COPY itself.
const copyRecords = `COPY usage_records (id, occurred_at, workload, model, input_tokens, cached_input_tokens,
    output_tokens, requests, latency_ms, ttft_ms, tags, bloat_tokens, prefill_flops, decode_flops, model_version) FROM STDIN`

// InsertRows implements usage.Store. In one transaction: the ids are
// claimed, the new rows are copied into usage_records with the COPY
// protocol (the way psql's \copy loads a table), and their sums are added
// to the rollups and histograms. A crash or a lost connection at any point
// leaves nothing of the batch behind, so a retry stores it whole.
func (s *Store) InsertRows(ctx context.Context, rows []usage.Row) (int, error) {
	if err := s.ensurePartitions(ctx, rows); err != nil {
		return 0, err
	}
	var n int
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		fresh, err := claimIDs(ctx, tx, rows)
		if err != nil {
			return err
		}
		n = len(fresh)
		if n == 0 {
			return nil
		}
		sums := newRollup()
		text, err := copyText(fresh, sums)
		if err != nil {
			return err
		}
		tag, err := tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(text), copyRecords)
		if err != nil {
			return err
		}
		if int(tag.RowsAffected()) != len(fresh) {
			return fmt.Errorf("copied %d of %d records", tag.RowsAffected(), len(fresh))
		}
		return sums.save(ctx, tx)
	})
	if err != nil {
		return 0, fmt.Errorf("store: insert usage: %w", err)
	}
	return n, nil
}

// claimIDs inserts the ids of rows that are new and returns those rows. It
// tries the batch as all new first, under a savepoint; on a unique
// violation (an id seen before, or one a concurrent batch has just stored)
// it rolls back to the savepoint and claims the ids with ON CONFLICT, which
// returns the ones it inserted.
func claimIDs(ctx context.Context, tx pgx.Tx, rows []usage.Row) ([]usage.Row, error) {
	ids, at := make([]string, len(rows)), make([]time.Time, len(rows))
	for i, r := range rows {
		ids[i], at[i] = r.Record.ID, r.Record.OccurredAt
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return nil, err
	}
	_, err = sp.Exec(ctx, insertNewIDs, ids, at)
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return rows, sp.Commit(ctx)
	case !errors.As(err, &pe) || pe.Code != "23505":
		return nil, err
	}
	if err := sp.Rollback(ctx); err != nil {
		return nil, err
	}
	rs, _ := tx.Query(ctx, insertIDs, ids, at)
	claimed, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	mine := make(map[string]bool, len(claimed))
	for _, id := range claimed {
		mine[id] = true
	}
	fresh := make([]usage.Row, 0, len(claimed))
	for _, r := range rows {
		if mine[r.Record.ID] {
			fresh = append(fresh, r)
		}
	}
	return fresh, nil
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
		months[utcMonth(r.Record.OccurredAt)] = true
	}
	for m := range months {
		if _, ok := partitions.Load(s.partitionKey(m)); ok {
			continue
		}
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

// priceRows writes the FLOPs of rows that were unpriced; the rows are
// locked by the caller's transaction, which then adds them to the rollups.
const priceRows = `
UPDATE usage_records r SET prefill_flops = b.prefill_flops, decode_flops = b.decode_flops, model_version = b.model_version
FROM unnest($1::text[], $2::timestamptz[], $3::numeric[], $4::numeric[], $5::integer[])
    AS b(id, occurred_at, prefill_flops, decode_flops, model_version)
WHERE r.id = b.id AND r.occurred_at = b.occurred_at AND r.prefill_flops IS NULL`

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
		ver := make([]int32, len(rows))
		sums := newRollup()
		for i, r := range rows {
			ids[i], at[i] = r.Record.ID, r.Record.OccurredAt
			pre[i], dec[i], ver[i] = r.PrefillFLOPs.String(), r.DecodeFLOPs.String(), int32(r.ModelVersion)
			tags, err := tagsJSON(r.RollupTags)
			if err != nil {
				return err
			}
			sums.addDaily(r, tags)
		}
		tag, err := tx.Exec(ctx, priceRows, ids, at, pre, dec, ver)
		if err != nil {
			return err
		}
		if int(tag.RowsAffected()) != len(rows) { // they were locked: cannot happen
			return fmt.Errorf("priced %d of %d locked records", tag.RowsAffected(), len(rows))
		}
		if err := sums.save(ctx, tx); err != nil {
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
