package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/budget"
)

// defaultMonth stands for "every month" in budgets.month (a primary key
// column cannot be NULL).
var defaultMonth = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)

func monthKey(m *budget.Month) time.Time {
	if m == nil {
		return defaultMonth
	}
	return m.Start.Time()
}

const upsertBudget = `
INSERT INTO budgets (workload, month, kind, plan, amount) VALUES ($1, $2, $3, NULLIF($4, ''), $5)
ON CONFLICT (workload, month) DO UPDATE SET kind = EXCLUDED.kind, plan = EXCLUDED.plan, amount = EXCLUDED.amount, updated_at = now()`

// PutBudget implements budget.Store.
func (s *Store) PutBudget(ctx context.Context, b budget.Budget) error {
	if _, err := s.pool.Exec(ctx, upsertBudget, b.Workload, monthKey(b.Month), b.Kind, b.Plan, b.Amount); err != nil {
		return fmt.Errorf("store: put budget %q: %w", b.Workload, err)
	}
	return nil
}

const deleteBudget = `DELETE FROM budgets WHERE workload = $1 AND month = $2`

// DeleteBudget implements budget.Store.
func (s *Store) DeleteBudget(ctx context.Context, workload string, m *budget.Month) error {
	tag, err := s.pool.Exec(ctx, deleteBudget, workload, monthKey(m))
	if err != nil {
		return fmt.Errorf("store: delete budget %q: %w", workload, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: budget %q: %w", workload, budget.ErrNotFound)
	}
	return nil
}

const selectBudgets = `SELECT workload, month, kind, coalesce(plan, ''), amount FROM budgets ORDER BY workload, month`

// Budgets implements budget.Store.
func (s *Store) Budgets(ctx context.Context) ([]budget.Budget, error) {
	rows, _ := s.pool.Query(ctx, selectBudgets)
	type row struct {
		Workload string
		Month    time.Time
		Kind     string
		Plan     string
		Amount   decimal.Decimal
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		return nil, fmt.Errorf("store: budgets: %w", err)
	}
	out := make([]budget.Budget, len(list))
	for i, r := range list {
		out[i] = budget.Budget{Workload: r.Workload, Kind: r.Kind, Plan: r.Plan, Amount: r.Amount}
		if !r.Month.Equal(defaultMonth) {
			m := budget.Month{Start: billing.DateOf(r.Month)}
			out[i].Month = &m
		}
	}
	return out, nil
}
