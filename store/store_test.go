package store_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// emptyDatabase makes a database with no schema at all, for migration tests.
func emptyDatabase(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := "empty_" + t.Name()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), pgtest.AdminURL())
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	return pgtest.URLFor(name)
}

// TestConcurrentMigrate starts several instances on one empty database at
// the same moment: the advisory lock lets exactly one apply each migration,
// and none fails.
func TestConcurrentMigrate(t *testing.T) {
	t.Parallel()
	url := emptyDatabase(t)
	ctx := context.Background()
	const instances = 4
	var wg sync.WaitGroup
	applied := make([]int, instances)
	errs := make([]error, instances)
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := store.Open(ctx, url, store.Options{})
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			applied[i], errs[i] = s.Migrate(ctx)
		}()
	}
	wg.Wait()
	total := 0
	for i := range instances {
		if errs[i] != nil {
			t.Fatalf("instance %d: %v", i, errs[i])
		}
		total += applied[i]
	}
	s, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var files int
	if err := s.InTx(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM goose_db_version WHERE version_id > 0`).Scan(&files)
	}); err != nil {
		t.Fatal(err)
	}
	if files == 0 || total != files {
		t.Fatalf("%d migrations applied in all by %d instances, %d recorded: each must be applied exactly once", total, instances, files)
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("not ready after migrating: %v", err)
	}
}

func TestSchemaBehindIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := store.Open(ctx, emptyDatabase(t), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SchemaCurrent(ctx); !errors.Is(err, store.ErrSchemaBehind) {
		t.Fatalf("an unmigrated database must be reported behind, got %v", err)
	}
	if err := s.Ready(ctx); !errors.Is(err, store.ErrSchemaBehind) {
		t.Fatalf("readiness must say the schema is behind, got %v", err)
	}
}

func TestOpenRefusesBadURLWithoutEchoingIt(t *testing.T) {
	t.Parallel()
	_, err := store.Open(context.Background(), "postgres://u:hunter2@[::1", store.Options{})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("want an error without the password, got %v", err)
	}
}

func TestInTxRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewStore(t)
	boom := errors.New("boom")
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO models (name, architecture, source) VALUES ('x', '{}', 'architecture')`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx must return fn's error, got %v", err)
	}
	if _, err := s.Model(ctx, "x"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("the insert must have been rolled back, got %v", err)
	}
}

// TestDecimalCodec: NUMERIC scans into decimal.Decimal exactly, beyond
// float64 and int64 precision.
func TestDecimalCodec(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewStore(t)
	var d decimal.Decimal
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT 123456789012345678901234567890.000000000001::numeric`).Scan(&d)
	})
	if err != nil || d.String() != "123456789012345678901234567890.000000000001" {
		t.Fatalf("got %v %v", d, err)
	}
}

// TestSaveModelConcurrently: many registrations of one name at once all
// succeed (one statement, no unique-key race) and exactly one creates it.
func TestSaveModelConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewStore(t)
	arch := estimator.Architecture{DModel: 8, Layers: 1, Heads: 2, KVHeads: 2, HeadDim: 4, DFF: 16, MLP: estimator.MLPGated, Vocab: 10}
	var wg sync.WaitGroup
	created := make(chan bool, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, c, err := s.SaveModel(ctx, catalog.Registered{Name: "m", Source: catalog.SourceArchitecture, Architecture: arch})
			if err != nil {
				t.Error(err)
			}
			created <- c
		}()
	}
	wg.Wait()
	close(created)
	n := 0
	for c := range created {
		if c {
			n++
		}
	}
	m, err := s.Model(ctx, "m")
	if n != 1 || err != nil || m.Version != 1 || m.Architecture != arch {
		t.Fatalf("created %d times (want 1), version %d, err %v", n, m.Version, err)
	}
}

func mustDate(s string) billing.Date {
	d, err := billing.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}
