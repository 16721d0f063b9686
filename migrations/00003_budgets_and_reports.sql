-- Monthly budgets, stored reports, the claims that make a scheduled run
-- happen exactly once across instances, and the delivery log.

-- +goose Up

-- A budget per workload: for one month, or (month NULL) the default for
-- every month without its own. Money budgets are measured under a plan.
CREATE TABLE budgets (
    workload   text    NOT NULL,
    -- first day of the month, or the far past for the default row (NULL
    -- cannot be part of a primary key)
    month      date    NOT NULL DEFAULT '0001-01-01',
    kind       text    NOT NULL CHECK (kind IN ('money', 'tflops')),
    plan       text,
    amount     numeric NOT NULL CHECK (amount > 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workload, month),
    CHECK ((kind = 'money') = (plan IS NOT NULL))
);

-- Reports as they were made: the JSON, CSV and HTML are kept as produced,
-- so a failed delivery never loses a report and a remade one is a new row.
CREATE TABLE reports (
    id           bigserial PRIMARY KEY,
    kind         text NOT NULL,           -- 'monthly', 'weekly', or a schedule name
    period_start date NOT NULL,
    period_end   date NOT NULL,
    group_by     text NOT NULL,
    request_plan text NOT NULL,
    flops_plan   text NOT NULL,
    body         jsonb NOT NULL,
    csv          text NOT NULL,
    html         text NOT NULL,
    summary      text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reports_period ON reports (period_start DESC, id DESC);

-- One row per scheduled run: the instance that inserts it runs it, the
-- others see the conflict and skip; a row without finished_at after a crash
-- is taken over once it is stale.
CREATE TABLE report_runs (
    schedule    text NOT NULL,
    period      date NOT NULL,
    claimed_by  text NOT NULL,
    claimed_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    report_id   bigint REFERENCES reports (id),
    error       text,
    PRIMARY KEY (schedule, period)
);

-- Every delivery attempt of a report or an alert, per channel.
CREATE TABLE deliveries (
    id        bigserial PRIMARY KEY,
    report_id bigint REFERENCES reports (id) ON DELETE CASCADE,
    alert_id  bigint,
    channel   text NOT NULL,
    kind      text NOT NULL,              -- 'email' or 'webhook'
    try       integer NOT NULL,
    at        timestamptz NOT NULL,
    took_ms   bigint NOT NULL,
    ok        boolean NOT NULL,
    final     boolean NOT NULL,
    error     text
);
CREATE INDEX deliveries_report ON deliveries (report_id, id);

-- Latency distribution per workload, month and grouping tags, kept at
-- ingest: a histogram with buckets 10% wide (bucket b holds latencies in
-- [1.1^b − 1, 1.1^(b+1) − 1) ms), so that monthly p50 and p99 come from a few
-- hundred rows per workload, not from the raw records (which retention may
-- have dropped). Percentiles read from it are within about 5%.
CREATE TABLE usage_latency_monthly (
    workload text     NOT NULL,
    month    date     NOT NULL,
    tags     jsonb    NOT NULL DEFAULT '{}',
    bucket   smallint NOT NULL,
    n        bigint   NOT NULL,
    PRIMARY KEY (workload, month, tags, bucket)
);

-- Prompt sizes per workload and month, kept at ingest: bucket b counts the
-- records whose mean prompt per request is in [2^b, 2^(b+1)) tokens, for the
-- dashboard's prompt-size distribution without a scan of the raw records.
CREATE TABLE usage_prompt_monthly (
    workload text     NOT NULL,
    month    date     NOT NULL,
    bucket   smallint NOT NULL,
    records  bigint   NOT NULL,
    requests numeric  NOT NULL,
    PRIMARY KEY (workload, month, bucket)
);

-- +goose Down
DROP TABLE usage_prompt_monthly;
DROP TABLE usage_latency_monthly;
DROP TABLE deliveries;
DROP TABLE report_runs;
DROP TABLE reports;
DROP TABLE budgets;
