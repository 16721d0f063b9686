-- Usage records, their idempotency keys, the daily rollups that reports and
-- comparisons read, and price plans with their versions.
--
-- Citus (on paper; see docs/scale.md): usage_ids and usage_records are
-- distributed by id, usage_daily by workload; every primary key below
-- contains its table's distribution column.

-- +goose Up

-- One row per record id ever accepted: the idempotency key, unique across
-- all months (a unique key of the partitioned table would have to contain
-- occurred_at and could not catch a replay with another timestamp).
CREATE TABLE usage_ids (
    id          text PRIMARY KEY,
    occurred_at timestamptz NOT NULL,
    ingested_at timestamptz NOT NULL DEFAULT now()
);

-- The raw records, partitioned by month of occurred_at. Partitions are made
-- on demand by the ingest path and dropped by retention; the rollups keep
-- the history.
CREATE TABLE usage_records (
    id                  text        NOT NULL,
    occurred_at         timestamptz NOT NULL,
    workload            text        NOT NULL,
    model               text        NOT NULL,
    input_tokens        bigint      NOT NULL CHECK (input_tokens >= 0),
    cached_input_tokens bigint      NOT NULL CHECK (cached_input_tokens >= 0 AND cached_input_tokens <= input_tokens),
    output_tokens       bigint      NOT NULL CHECK (output_tokens >= 0),
    requests            bigint      NOT NULL CHECK (requests >= 1),
    latency_ms          bigint,
    ttft_ms             bigint,
    tags                jsonb       NOT NULL DEFAULT '{}',
    -- redundant-whitespace tokens, when the prompt was analysed or the
    -- client counted them; NULL when unknown
    bloat_tokens        bigint,
    -- exact FLOPs; NULL while the model is unknown (the record is
    -- "unpriced" until the model is registered and backfill fills them)
    prefill_flops       numeric,
    decode_flops        numeric,
    -- version of the model's architecture the FLOPs were computed with
    model_version       integer,
    PRIMARY KEY (id, occurred_at)
) PARTITION BY RANGE (occurred_at);

-- Unpriced records are found by model, for the backfill and the dashboard.
CREATE INDEX usage_records_unpriced ON usage_records (model) WHERE prefill_flops IS NULL;

-- Per-day sums, maintained in the same transaction as the ingest (and the
-- backfill). tags holds only the tag keys configured for grouping.
CREATE TABLE usage_daily (
    workload            text    NOT NULL,
    day                 date    NOT NULL,
    model               text    NOT NULL,
    tags                jsonb   NOT NULL DEFAULT '{}',
    records             bigint  NOT NULL,
    requests            numeric NOT NULL,
    input_tokens        numeric NOT NULL,
    cached_input_tokens numeric NOT NULL,
    output_tokens       numeric NOT NULL,
    prefill_flops       numeric NOT NULL,
    decode_flops        numeric NOT NULL,
    -- bloat: tokens, and the input tokens of the records whose bloat is known
    bloat_tokens        numeric NOT NULL DEFAULT 0,
    bloat_input_tokens  numeric NOT NULL DEFAULT 0,
    latency_records     bigint  NOT NULL DEFAULT 0,
    latency_ms_sum      numeric NOT NULL DEFAULT 0,
    PRIMARY KEY (workload, day, model, tags)
);
CREATE INDEX usage_daily_day ON usage_daily (day);

CREATE TABLE plans (
    name       text PRIMARY KEY,
    kind       text NOT NULL CHECK (kind IN ('request', 'flops')),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A version's prices as billing writes them (amounts are decimal strings,
-- exact); it applies from effective_from (a UTC day) until the next one.
CREATE TABLE plan_versions (
    plan           text NOT NULL REFERENCES plans (name) ON DELETE CASCADE,
    effective_from date NOT NULL,
    body           jsonb NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (plan, effective_from)
);

-- +goose Down
DROP TABLE plan_versions;
DROP TABLE plans;
DROP TABLE usage_daily;
DROP TABLE usage_records;
DROP TABLE usage_ids;
