// Package pgtest gives tests a real PostgreSQL: the server named by
// TEST_DATABASE_URL, or else a throwaway cluster started with pgembed, the
// same code that runs the service's embedded default. A template database is
// migrated once per test binary and every test gets its own clone, so tests
// are independent and run in parallel. A failing test keeps its database for
// inspection and logs how to reach it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/pgembed"
	"github.com/flopledger/flopledger/store"
)

// env is set by Main and read by the helpers.
var env struct {
	admin    string // URL of a database we may run CREATE DATABASE from
	template string // name of the migrated template database
}

// Main prepares the server and the template, runs the tests, and cleans up.
// Use it from TestMain: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }.
func Main(m *testing.M) int {
	ctx := context.Background()
	admin := os.Getenv("TEST_DATABASE_URL")
	var srv *pgembed.Server
	var dir string
	if admin == "" {
		var err error
		dir, err = os.MkdirTemp("", "flopledger-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			return 1
		}
		// Our own fresh folder: the account that runs PostgreSQL must be
		// able to traverse it when the tests run as root.
		if err := os.Chmod(dir, 0o711); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			return 1
		}
		srv, err = pgembed.Start(ctx, pgembed.Options{Dir: filepath.Join(dir, "pg"), Fast: true, Database: "postgres"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: start embedded PostgreSQL:", err)
			return 1
		}
		admin = srv.ConnString("postgres")
	}
	env.admin = admin
	env.template = "flopledger_tpl_" + randomSuffix()
	code := func() int {
		if err := makeTemplate(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			return 1
		}
		return m.Run()
	}()
	_ = exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{env.template}.Sanitize()))
	if srv != nil {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_ = srv.Stop(sctx)
		if code == 0 {
			os.RemoveAll(dir)
		} else {
			fmt.Fprintln(os.Stderr, "pgtest: tests failed; the cluster is kept in", dir)
		}
	}
	return code
}

func makeTemplate(ctx context.Context) error {
	if err := exec(ctx, "CREATE DATABASE "+pgx.Identifier{env.template}.Sanitize()); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	s, err := store.Open(ctx, URLFor(env.template), store.Options{})
	if err != nil {
		return err
	}
	defer s.Close() // the template must have no connections left when cloned
	if _, err := s.Migrate(ctx); err != nil {
		return err
	}
	return nil
}

// NewDatabase creates a fresh migrated database for t and returns its URL.
// It is dropped when t passes and kept, with its URL logged, when t fails.
func NewDatabase(t testing.TB) string {
	t.Helper()
	if env.admin == "" {
		t.Fatal("pgtest: call pgtest.Main from TestMain")
	}
	name := dbName(t.Name())
	ctx := context.Background()
	q := fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", pgx.Identifier{name}.Sanitize(), pgx.Identifier{env.template}.Sanitize())
	if err := exec(ctx, q); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	u := URLFor(name)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pgtest: database kept for inspection: %s", u)
			return
		}
		if err := exec(context.Background(), fmt.Sprintf("DROP DATABASE %s WITH (FORCE)", pgx.Identifier{name}.Sanitize())); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	return u
}

// NewStore opens a store on a fresh database (see NewDatabase), closed at
// the end of the test.
func NewStore(t testing.TB) *store.Store {
	t.Helper()
	return openStore(t, NewDatabase(t))
}

func openStore(t testing.TB, dbURL string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), dbURL, store.Options{})
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewStoreAndConn is NewStore plus a plain connection to the same
// database, for tests that look at (or lock) tables behind the store's back.
// Both are closed at the end of the test.
func NewStoreAndConn(t testing.TB) (*store.Store, *pgx.Conn) {
	t.Helper()
	dbURL := NewDatabase(t)
	s := openStore(t, dbURL)
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return s, conn
}

// URLFor returns the admin URL pointed at database name.
func URLFor(name string) string {
	u, err := url.Parse(env.admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return env.admin + " dbname=" + name // key=value DSN: the last dbname wins
	}
	u.Path = "/" + name
	return u.String()
}

// AdminURL is the URL of the server's maintenance database, for tests that
// create databases of their own.
func AdminURL() string { return env.admin }

func exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, env.admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

var unsafe = regexp.MustCompile(`[^a-z0-9_]+`)

// dbName derives a readable, unique database name from the test name, so a
// kept database says which test left it.
func dbName(test string) string {
	n := unsafe.ReplaceAllString(strings.ToLower(test), "_")
	if len(n) > 40 {
		n = n[:40]
	}
	return "t_" + n + "_" + randomSuffix()
}

func randomSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
