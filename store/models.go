package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
)

// modelRow is a row of the models table.
type modelRow struct {
	Name         string
	Architecture []byte
	Source       string
	StandInFor   *string
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

func (r modelRow) registered() (catalog.Registered, error) {
	var a estimator.Architecture
	if err := json.Unmarshal(r.Architecture, &a); err != nil {
		return catalog.Registered{}, fmt.Errorf("store: model %q: stored architecture unreadable: %w", r.Name, err)
	}
	m := catalog.Registered{Name: r.Name, Source: r.Source, Architecture: a, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.StandInFor != nil {
		m.StandInFor = *r.StandInFor
	}
	return m, nil
}

const modelColumns = `name, architecture, source, stand_in_for, version, created_at, updated_at`

const selectModel = `SELECT ` + modelColumns + ` FROM models WHERE name = $1`

// Model returns the registered model called name.
func (s *Store) Model(ctx context.Context, name string) (catalog.Registered, error) {
	rows, _ := s.pool.Query(ctx, selectModel, name)
	row, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[modelRow])
	if errors.Is(err, pgx.ErrNoRows) {
		return catalog.Registered{}, fmt.Errorf("store: model %q: %w", name, catalog.ErrNotFound)
	}
	if err != nil {
		return catalog.Registered{}, fmt.Errorf("store: model %q: %w", name, err)
	}
	return row.registered()
}

const selectModels = `SELECT ` + modelColumns + ` FROM models ORDER BY name`

// Models returns every registered model by name.
func (s *Store) Models(ctx context.Context) ([]catalog.Registered, error) {
	rows, _ := s.pool.Query(ctx, selectModels)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[modelRow])
	if err != nil {
		return nil, fmt.Errorf("store: models: %w", err)
	}
	out := make([]catalog.Registered, 0, len(list))
	for _, r := range list {
		m, err := r.registered()
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// upsertModel inserts or replaces a model in one statement, so concurrent
// registrations of one name never fail on the unique key. The version moves
// only when the architecture really changes (jsonb compares by value).
// xmax = 0 holds exactly for a freshly inserted row.
const upsertModel = `
INSERT INTO models (name, architecture, source, stand_in_for)
VALUES ($1, $2, $3, NULLIF($4, ''))
ON CONFLICT (name) DO UPDATE SET
    architecture = EXCLUDED.architecture,
    source       = EXCLUDED.source,
    stand_in_for = EXCLUDED.stand_in_for,
    version      = models.version + CASE WHEN models.architecture = EXCLUDED.architecture THEN 0 ELSE 1 END,
    updated_at   = now()
RETURNING ` + modelColumns + `, (xmax = 0) AS created`

// SaveModel inserts or replaces a registered model.
func (s *Store) SaveModel(ctx context.Context, m catalog.Registered) (catalog.Registered, bool, error) {
	arch, err := json.Marshal(m.Architecture)
	if err != nil {
		return catalog.Registered{}, false, fmt.Errorf("store: save model: %w", err)
	}
	var r modelRow
	var created bool
	err = s.pool.QueryRow(ctx, upsertModel, m.Name, arch, m.Source, m.StandInFor).
		Scan(&r.Name, &r.Architecture, &r.Source, &r.StandInFor, &r.Version, &r.CreatedAt, &r.UpdatedAt, &created)
	if err != nil {
		return catalog.Registered{}, false, fmt.Errorf("store: save model %q: %w", m.Name, err)
	}
	saved, err := r.registered()
	return saved, created, err
}

const deleteModel = `DELETE FROM models WHERE name = $1`

// DeleteModel removes a registered model.
func (s *Store) DeleteModel(ctx context.Context, name string) error {
	tag, err := s.pool.Exec(ctx, deleteModel, name)
	if err != nil {
		return fmt.Errorf("store: delete model %q: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: delete model %q: %w", name, catalog.ErrNotFound)
	}
	return nil
}
