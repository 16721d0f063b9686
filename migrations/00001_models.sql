-- User-registered models: an architecture of their own (from the API's JSON
-- form or a pasted Hugging Face config.json), or a hosted model's name mapped
-- to a stand-in architecture. Built-in catalog models live in the binary.

-- +goose Up
CREATE TABLE models (
    name         text PRIMARY KEY CHECK (name <> '' AND length(name) <= 200),
    -- the normalised estimator.Architecture, JSON as the API shows it
    architecture jsonb NOT NULL,
    -- how the architecture was given: 'architecture', 'hf_config' or 'stand_in'
    source       text NOT NULL CHECK (source IN ('architecture', 'hf_config', 'stand_in')),
    -- for a stand-in: the catalog or registered model whose architecture was copied
    stand_in_for text,
    -- bumped on every change of architecture; usage records keep the version
    -- their FLOPs were computed with
    version      integer NOT NULL DEFAULT 1 CHECK (version >= 1),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE models;
