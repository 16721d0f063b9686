package store

import (
	"context"
	"math/big"
	"math/bits"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/usage"
)

// rollup sums a batch of records for the daily rollups (usage_daily) and
// the monthly latency and prompt-size histograms, in Go: the batch's rows
// are here already, and a few hundred summed rows cost PostgreSQL far less
// than grouping thousands (it was a fifth of the ingest's database time).
// Ingest adds its new records to all three; backfill adds the records it
// prices to the daily rollups only (the histograms counted them at ingest).
type rollup struct {
	daily   map[dailyKey]*dailySums
	latency map[latencyKey]int64
	prompts map[promptKey]*promptSums
}

type dailyKey struct {
	workload, model string
	day             time.Time
	tags            string // the rollup tags as JSON (encoding/json sorts the keys)
}

type dailySums struct {
	records, latencyRecords                                     int64
	requests, input, cached, output, bloat, bloatInput, latency sum128
	prefill, decode                                             big.Int
}

type latencyKey struct {
	workload string
	month    time.Time
	tags     string
	bucket   int16
}

type promptKey struct {
	workload string
	month    time.Time
	bucket   int16
}

type promptSums struct {
	records  int64
	requests sum128
}

func newRollup() *rollup {
	return &rollup{daily: map[dailyKey]*dailySums{}, latency: map[latencyKey]int64{}, prompts: map[promptKey]*promptSums{}}
}

// addDaily adds a priced row to its day's rollup; unpriced rows wait for
// the backfill.
func (r *rollup) addDaily(row usage.Row, tags string) {
	if row.PrefillFLOPs == nil {
		return
	}
	rec := row.Record
	k := dailyKey{workload: rec.Workload, model: rec.Model, day: billing.DateOf(rec.OccurredAt).Time(), tags: tags}
	s := r.daily[k]
	if s == nil {
		s = new(dailySums)
		r.daily[k] = s
	}
	s.records++
	s.requests.add(rec.Requests)
	s.input.add(rec.InputTokens)
	s.cached.add(rec.CachedInputTokens)
	s.output.add(rec.OutputTokens)
	s.prefill.Add(&s.prefill, row.PrefillFLOPs)
	s.decode.Add(&s.decode, row.DecodeFLOPs)
	if rec.BloatTokens != nil {
		s.bloat.add(*rec.BloatTokens)
		s.bloatInput.add(rec.InputTokens)
	}
	if rec.LatencyMS != nil {
		s.latencyRecords++
		s.latency.add(*rec.LatencyMS)
	}
}

// addHistograms counts a new row, priced or not, in its month's latency
// and prompt-size histograms.
func (r *rollup) addHistograms(row usage.Row, tags string) {
	rec := row.Record
	month := utcMonth(rec.OccurredAt)
	if rec.LatencyMS != nil {
		r.latency[latencyKey{rec.Workload, month, tags, latencyBucket(*rec.LatencyMS)}]++
	}
	pk := promptKey{rec.Workload, month, promptBucket(rec.InputTokens, rec.Requests)}
	p := r.prompts[pk]
	if p == nil {
		p = new(promptSums)
		r.prompts[pk] = p
	}
	p.records++
	p.requests.add(rec.Requests)
}

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

// upsertRollups adds a batch's sums to the stored ones. Rows are sorted by
// key so that concurrent batches lock the rows they share in one order.
const upsertRollups = `
WITH daily AS (
    INSERT INTO usage_daily AS d (workload, day, model, tags, records, requests, input_tokens, cached_input_tokens,
        output_tokens, prefill_flops, decode_flops, bloat_tokens, bloat_input_tokens, latency_records, latency_ms_sum)
    SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::jsonb[], $5::bigint[], $6::numeric[], $7::numeric[],
        $8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[], $13::numeric[], $14::bigint[], $15::numeric[])
    ORDER BY 1, 2, 3, 4
    ` + addToRollup + `
    RETURNING 1
),
latency AS (
    INSERT INTO usage_latency_monthly AS l (workload, month, tags, bucket, n)
    SELECT * FROM unnest($16::text[], $17::date[], $18::jsonb[], $19::smallint[], $20::bigint[])
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (workload, month, tags, bucket) DO UPDATE SET n = l.n + EXCLUDED.n
    RETURNING 1
),
prompts AS (
    INSERT INTO usage_prompt_monthly AS p (workload, month, bucket, records, requests)
    SELECT * FROM unnest($21::text[], $22::date[], $23::smallint[], $24::bigint[], $25::numeric[])
    ORDER BY 1, 2, 3
    ON CONFLICT (workload, month, bucket) DO UPDATE SET records = p.records + EXCLUDED.records, requests = p.requests + EXCLUDED.requests
    RETURNING 1
)
SELECT (SELECT count(*) FROM daily) + (SELECT count(*) FROM latency) + (SELECT count(*) FROM prompts)`

// save adds the sums to the stored rollups in tx.
func (r *rollup) save(ctx context.Context, tx pgx.Tx) error {
	if len(r.daily)+len(r.latency)+len(r.prompts) == 0 {
		return nil
	}
	var d struct {
		workload, model, tags                                            []string
		day                                                              []time.Time
		records, latencyRecords                                          []int64
		requests, input, cached, output, prefill, decode, bloat, bloatIn []string
		latency                                                          []string
	}
	for k, s := range r.daily {
		d.workload, d.model, d.tags, d.day = append(d.workload, k.workload), append(d.model, k.model), append(d.tags, k.tags), append(d.day, k.day)
		d.records, d.latencyRecords = append(d.records, s.records), append(d.latencyRecords, s.latencyRecords)
		d.requests, d.input, d.cached = append(d.requests, s.requests.String()), append(d.input, s.input.String()), append(d.cached, s.cached.String())
		d.output, d.prefill, d.decode = append(d.output, s.output.String()), append(d.prefill, s.prefill.String()), append(d.decode, s.decode.String())
		d.bloat, d.bloatIn, d.latency = append(d.bloat, s.bloat.String()), append(d.bloatIn, s.bloatInput.String()), append(d.latency, s.latency.String())
	}
	var l struct {
		workload, tags []string
		month          []time.Time
		bucket         []int16
		n              []int64
	}
	for k, n := range r.latency {
		l.workload, l.tags, l.month, l.bucket, l.n = append(l.workload, k.workload), append(l.tags, k.tags), append(l.month, k.month), append(l.bucket, k.bucket), append(l.n, n)
	}
	var p struct {
		workload []string
		month    []time.Time
		bucket   []int16
		records  []int64
		requests []string
	}
	for k, s := range r.prompts {
		p.workload, p.month, p.bucket = append(p.workload, k.workload), append(p.month, k.month), append(p.bucket, k.bucket)
		p.records, p.requests = append(p.records, s.records), append(p.requests, s.requests.String())
	}
	_, err := tx.Exec(ctx, upsertRollups,
		d.workload, d.day, d.model, d.tags, d.records, d.requests, d.input, d.cached, d.output, d.prefill, d.decode, d.bloat, d.bloatIn, d.latencyRecords, d.latency,
		l.workload, l.month, l.tags, l.bucket, l.n,
		p.workload, p.month, p.bucket, p.records, p.requests)
	return err
}

// utcMonth is the first instant of the UTC month t falls in: the month of
// a record's partition and of its histograms.
func utcMonth(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// sum128 adds int64 values in 128-bit two's complement: a batch's token
// sums cannot overflow it, and it costs no allocation per record.
type sum128 struct{ hi, lo uint64 }

func (s *sum128) add(v int64) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, uint64(v), 0)
	ext := uint64(0)
	if v < 0 {
		ext = ^uint64(0)
	}
	s.hi, _ = bits.Add64(s.hi, ext, carry)
}

func (s sum128) String() string {
	n := new(big.Int).SetUint64(s.hi)
	n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(s.lo))
	if s.hi>>63 == 1 { // negative: subtract 2^128
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return n.String()
}
