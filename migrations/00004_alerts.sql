-- Alerts: one row per (workload, kind, window) that crossed its threshold.
-- Thresholds and floors are configuration (alert.Config, passed in by cmd),
-- not a table: they change with a deploy, and a table would need an API and
-- a history of its own before anyone asked for one.

-- +goose Up
CREATE TABLE alerts (
    id                bigserial   PRIMARY KEY,
    workload          text        NOT NULL,
    kind              text        NOT NULL CHECK (kind IN ('whitespace_bloat', 'prompt_inflation', 'flops_surge',
                                                           'budget_at_risk', 'budget_exceeded')),
    -- the window that opened the alert: window_start stays, window_end
    -- moves forward while later windows still cross the threshold (a UTC
    -- day for the data kinds, the budget's month for the budget kinds)
    window_start      timestamptz NOT NULL,
    window_end        timestamptz NOT NULL CHECK (window_end > window_start),
    state             text        NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'acknowledged', 'resolved')),
    sentence          text        NOT NULL,
    -- alert.Evidence and alert.Cost as JSON: FLOPs are JSON numbers (jsonb
    -- keeps them exact, as numeric), money is decimal strings
    evidence          jsonb       NOT NULL,
    cost              jsonb       NOT NULL,
    fix               text        NOT NULL,
    opened_at         timestamptz NOT NULL,
    acknowledged_at   timestamptz,
    resolved_at       timestamptz,
    resolved_by       text        CHECK (resolved_by IN ('user', 'auto')),
    last_evaluated_at timestamptz NOT NULL,
    CHECK (state <> 'acknowledged' OR acknowledged_at IS NOT NULL),
    CHECK ((state = 'resolved') = (resolved_at IS NOT NULL AND resolved_by IS NOT NULL)),
    -- a window pages once: a re-evaluation of the same window, even after
    -- the alert was resolved by hand, does not open it again
    UNIQUE (workload, kind, window_start)
);

-- No repeats while an alert stays open: at most one open or acknowledged
-- alert per workload and kind. A later window that still crosses refreshes
-- that alert; two instances evaluating at once cannot both open one.
CREATE UNIQUE INDEX alerts_one_unresolved ON alerts (workload, kind) WHERE state <> 'resolved';

-- The list, newest first, filtered by state.
CREATE INDEX alerts_state_opened ON alerts (state, opened_at DESC);

-- +goose Down
DROP TABLE alerts;
