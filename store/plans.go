package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/flopledger/flopledger/billing"
)

const insertPlan = `INSERT INTO plans (name, kind) VALUES ($1, $2)`

const upsertPlanVersion = `
INSERT INTO plan_versions (plan, effective_from, body) VALUES ($1, $2, $3)
ON CONFLICT (plan, effective_from) DO UPDATE SET body = EXCLUDED.body, created_at = now()
RETURNING (xmax <> 0) AS replaced`

// CreatePlan stores a new plan with its versions, in one transaction.
func (s *Store) CreatePlan(ctx context.Context, p billing.Plan) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insertPlan, p.Name, string(p.Kind)); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23505" {
				return fmt.Errorf("store: plan %q: %w", p.Name, billing.ErrPlanExists)
			}
			return fmt.Errorf("store: create plan %q: %w", p.Name, err)
		}
		for _, v := range p.Versions {
			if _, err := saveVersion(ctx, tx, p.Name, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddPlanVersion adds v to the plan called name, or replaces the version of
// the same day; replaced says which.
func (s *Store) AddPlanVersion(ctx context.Context, name string, v billing.Version) (replaced bool, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		var kind string
		if err := tx.QueryRow(ctx, `SELECT kind FROM plans WHERE name = $1 FOR UPDATE`, name).Scan(&kind); errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: plan %q: %w", name, billing.ErrPlanNotFound)
		} else if err != nil {
			return fmt.Errorf("store: plan %q: %w", name, err)
		}
		if billing.Kind(kind) != v.Kind {
			return fmt.Errorf("store: plan %q is a %s plan, the version is %s: %w", name, kind, v.Kind, billing.ErrKind)
		}
		replaced, err = saveVersion(ctx, tx, name, v)
		return err
	})
	return replaced, err
}

func saveVersion(ctx context.Context, tx pgx.Tx, plan string, v billing.Version) (bool, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return false, fmt.Errorf("store: plan %q version: %w", plan, err)
	}
	var replaced bool
	if err := tx.QueryRow(ctx, upsertPlanVersion, plan, v.EffectiveFrom.Time(), body).Scan(&replaced); err != nil {
		return false, fmt.Errorf("store: plan %q version %s: %w", plan, v.EffectiveFrom, err)
	}
	return replaced, nil
}

const selectPlans = `
SELECT p.name, p.kind, coalesce(json_agg(v.body ORDER BY v.effective_from) FILTER (WHERE v.plan IS NOT NULL), '[]')
FROM plans p LEFT JOIN plan_versions v ON v.plan = p.name
WHERE $1::text IS NULL OR p.name = $1
GROUP BY p.name, p.kind
ORDER BY p.name`

// Plan returns the plan called name with its versions in date order.
func (s *Store) Plan(ctx context.Context, name string) (billing.Plan, error) {
	ps, err := s.plans(ctx, &name)
	if err != nil {
		return billing.Plan{}, err
	}
	if len(ps) == 0 {
		return billing.Plan{}, fmt.Errorf("store: plan %q: %w", name, billing.ErrPlanNotFound)
	}
	return ps[0], nil
}

// Plans returns every plan by name.
func (s *Store) Plans(ctx context.Context) ([]billing.Plan, error) { return s.plans(ctx, nil) }

func (s *Store) plans(ctx context.Context, name *string) ([]billing.Plan, error) {
	rows, err := s.pool.Query(ctx, selectPlans, name)
	if err != nil {
		return nil, fmt.Errorf("store: plans: %w", err)
	}
	defer rows.Close()
	var out []billing.Plan
	for rows.Next() {
		var p billing.Plan
		var kind string
		var versions []json.RawMessage
		if err := rows.Scan(&p.Name, &kind, &versions); err != nil {
			return nil, fmt.Errorf("store: plans: %w", err)
		}
		p.Kind = billing.Kind(kind)
		for _, body := range versions {
			v, err := billing.DecodeVersion(p.Kind, body)
			if err != nil {
				return nil, fmt.Errorf("store: plan %q: stored version unreadable: %w", p.Name, err)
			}
			p.Versions = append(p.Versions, v)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
