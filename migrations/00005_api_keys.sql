-- API keys (only their SHA-256 is stored; the key is shown once, at
-- creation) and dashboard sessions (only the token's SHA-256 is stored).

-- +goose Up
CREATE TABLE api_keys (
    id          text PRIMARY KEY,
    name        text NOT NULL CHECK (name <> '' AND length(name) <= 200),
    hash        bytea NOT NULL UNIQUE,
    scopes      text[] NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at  timestamptz
);

CREATE TABLE sessions (
    hash       bytea PRIMARY KEY,
    -- an api_keys id, or "env:FLOPLEDGER_ADMIN_KEY" for the environment's key
    key_id     text NOT NULL,
    csrf       text NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- +goose Down
DROP TABLE sessions;
DROP TABLE api_keys;
