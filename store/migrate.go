package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/flopledger/flopledger/migrations"
)

// ErrSchemaBehind means the database lacks migrations that this binary has.
var ErrSchemaBehind = errors.New("database schema is behind this binary: run `flopledger migrate` (or start with FLOPLEDGER_AUTO_MIGRATE=true)")

// migrationLockID is the PostgreSQL advisory lock key that serialises
// migrations across instances: crc64("flopledger-migrate") would do as well;
// any constant unique to this application works.
const migrationLockID int64 = 0x666c6f706c6467 // "flopldg"

// provider builds a goose provider over the pool. The session locker holds a
// PostgreSQL advisory lock for the whole run, so two instances that start at
// once apply each migration once: the second waits, then finds nothing to do.
func (s *Store) provider() (*goose.Provider, *sql.DB, error) {
	locker, err := lock.NewPostgresSessionLocker(
		lock.WithLockID(migrationLockID),
		lock.WithLockTimeout(1, 300), // retry every second for five minutes
	)
	if err != nil {
		return nil, nil, fmt.Errorf("store: migration lock: %w", err)
	}
	db := stdlib.OpenDBFromPool(s.pool)
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS(),
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(s.log.With(slog.String("component", "migrate"))),
	)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("store: migrations: %w", err)
	}
	return p, db, nil
}

// Migrate applies every pending migration, each in its own transaction, and
// returns how many it applied.
func (s *Store) Migrate(ctx context.Context) (int, error) {
	p, db, err := s.provider()
	if err != nil {
		return 0, err
	}
	defer db.Close()
	res, err := p.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("store: migrate: %w", err)
	}
	for _, r := range res {
		s.log.Info("migration applied", slog.String("file", r.Source.Path), slog.Int64("took_ms", r.Duration.Milliseconds()))
	}
	return len(res), nil
}

// SchemaCurrent returns nil when every embedded migration has been applied,
// ErrSchemaBehind when some are pending, or the error that prevented the check.
func (s *Store) SchemaCurrent(ctx context.Context) error {
	p, db, err := s.provider()
	if err != nil {
		return err
	}
	defer db.Close()
	pending, err := p.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("store: check migrations: %w", err)
	}
	if pending {
		return ErrSchemaBehind
	}
	return nil
}

// Ready reports whether the database answers and its schema is current; it
// backs GET /readyz.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.Ping(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", errors.Unwrap(err))
	}
	return s.SchemaCurrent(ctx)
}
