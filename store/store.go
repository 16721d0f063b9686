// Package store is the only package that speaks SQL. It owns the pgx/v5 pool,
// applies the embedded migrations and implements the small interfaces that
// the domain packages declare.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when a row that a caller asked for does not exist.
var ErrNotFound = errors.New("not found")

// Options tune the pool. Zero values take pgxpool's defaults.
type Options struct {
	MaxConns int32
	Logger   *slog.Logger
}

// Store wraps the connection pool.
type Store struct {
	pool *pgxpool.Pool
	log  *slog.Logger
}

// Open connects to the database at url and checks that it answers. It does
// not migrate: call Migrate for that.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may echo the URL, password included; keep only the cause.
		return nil, fmt.Errorf("store: DATABASE_URL is not a valid PostgreSQL URL or DSN: %w", errors.Unwrap(err))
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	// NUMERIC columns scan into decimal.Decimal exactly, on every connection.
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		pgxdecimal.Register(c.TypeMap())
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: open pool: %w", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{pool: pool, log: log}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close waits for borrowed connections to come back and closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// PoolStat reports the pool's figures for metrics.
func (s *Store) PoolStat() *pgxpool.Stat { return s.pool.Stat() }

// InTx runs fn in one transaction: committed when fn returns nil, rolled
// back otherwise (and on panic, through the deferred rollback).
func (s *Store) InTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}
