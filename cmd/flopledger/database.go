package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/flopledger/flopledger/pgembed"
	"github.com/flopledger/flopledger/store"
)

// database is an open store and, in embedded mode, the PostgreSQL we started
// for it. close stops both, in order.
type database struct {
	store    *store.Store
	embedded *pgembed.Server
}

// openDatabase connects to DATABASE_URL or, when it is empty, starts the
// embedded PostgreSQL in the data dir and connects to that.
func openDatabase(ctx context.Context, cfg Config, log *slog.Logger) (*database, error) {
	db := &database{}
	url := cfg.DatabaseURL
	if url == "" {
		start := time.Now()
		srv, err := pgembed.Start(ctx, pgembed.Options{
			Dir:    filepath.Join(cfg.DataDir, "pg"),
			User:   cfg.PGUser,
			Logger: log.With(slog.String("component", "pgembed")),
		})
		if err != nil {
			return nil, fmt.Errorf("embedded PostgreSQL: %w", err)
		}
		db.embedded = srv
		url = srv.ConnString("flopledger")
		log.Info("embedded PostgreSQL ready", slog.String("dir", srv.Dir()), slog.Int64("took_ms", time.Since(start).Milliseconds()))
	}
	s, err := store.Open(ctx, url, store.Options{Logger: log.With(slog.String("component", "store"))})
	if err != nil {
		db.close(log)
		return nil, err
	}
	db.store = s
	return db, nil
}

// close releases the pool, then stops the embedded PostgreSQL, if any, with
// a fast shutdown so that no postgres process outlives us.
func (d *database) close(log *slog.Logger) {
	if d.store != nil {
		d.store.Close()
	}
	if d.embedded != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := d.embedded.Stop(ctx); err != nil {
			log.Error("stopping embedded PostgreSQL", slog.Any("error", err))
		}
	}
}

// prepareSchema migrates, or with auto-migrate off, refuses a schema that
// is behind this binary.
func prepareSchema(ctx context.Context, cfg Config, s *store.Store, log *slog.Logger) error {
	if !cfg.AutoMigrate {
		return s.SchemaCurrent(ctx)
	}
	n, err := s.Migrate(ctx)
	if err != nil {
		return err
	}
	log.Info("schema current", slog.Int("applied", n))
	return nil
}

func migrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.close(log)
	cfg.AutoMigrate = true
	return prepareSchema(ctx, cfg, db.store, log)
}

// openForTool opens the database for a command that is not the server
// (import, report): DATABASE_URL, or the embedded PostgreSQL when no server
// holds it. When one does, it says so and shows the API call to use
// instead (instead). The caller closes the database.
func openForTool(ctx context.Context, cmd string, cfg Config, log *slog.Logger, stderr io.Writer, instead string) (*database, bool) {
	db, err := openDatabase(ctx, cfg, log)
	if errors.Is(err, pgembed.ErrLocked) {
		fmt.Fprintf(stderr, "flopledger %s: the embedded PostgreSQL is in use by a running flopledger; use it instead:\n  %s\n", cmd, instead)
		return nil, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "flopledger %s: %v\n", cmd, err)
		return nil, false
	}
	if err := prepareSchema(ctx, cfg, db.store, log); err != nil {
		fmt.Fprintf(stderr, "flopledger %s: %v\n", cmd, err)
		db.close(log)
		return nil, false
	}
	return db, true
}
