package pgembed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFirstStartAndRestart uses the production settings (Fast off) and
// logs first-start (initdb) and restart times.
func TestFirstStartAndRestart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")

	begin := time.Now()
	s := startT(t, Options{Dir: dir})
	t.Logf("first start (initdb + createdb): %v", time.Since(begin).Round(time.Millisecond))
	if s.Dir() != dir || s.SocketDir() != dir {
		t.Errorf("Dir, SocketDir = %s, %s; want %s for both", s.Dir(), s.SocketDir(), dir)
	}
	psql(t, s, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)")
	stop(t, s)

	begin = time.Now()
	s = startT(t, Options{Dir: dir})
	t.Logf("second start: %v", time.Since(begin).Round(time.Millisecond))
	if got := psql(t, s, "SELECT x FROM kept"); got != "42" {
		t.Errorf("after restart: %q; want 42", got)
	}
	if got := psql(t, s, "SHOW listen_addresses"); got != "" {
		t.Errorf("listen_addresses = %q; want empty (no TCP)", got)
	}
	if got := psql(t, s, "SELECT current_user || ' ' || current_database()"); got != "flopledger flopledger" {
		t.Errorf("user and database = %q", got)
	}
}

func TestFallbackWhenParentNotTraversable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the fallback applies only when running as root")
	}
	requested := filepath.Join(t.TempDir(), "pg") // parent is 0700 root
	fallback := sharedDir(t)
	o := Options{Dir: requested, FallbackDir: fallback, Fast: true}

	s := startT(t, o)
	want := fallbackPath(fallback, requested)
	if s.Dir() != want {
		t.Fatalf("Dir = %s; want %s", s.Dir(), want)
	}
	if _, err := os.Stat(requested); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("requested folder was created (%v); it should stay untouched", err)
	}
	psql(t, s, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (1)")
	stop(t, s)

	s = startT(t, o)
	if s.Dir() != want {
		t.Errorf("Dir after restart = %s; want %s", s.Dir(), want)
	}
	if got := psql(t, s, "SELECT x FROM kept"); got != "1" {
		t.Errorf("after restart: %q; want 1", got)
	}
}

// TestSocketFolder covers cluster paths that cannot hold the socket.
func TestSocketFolder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, sub string
		moved     bool
	}{
		{"too long", filepath.Join(strings.Repeat("d", 60), strings.Repeat("e", 60)), true},
		{"comma", "a,b", true},
		{"space", "a b", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(sharedDir(t), tc.sub, "pg")
			s := startT(t, Options{Dir: dir, Fast: true})
			if moved := s.SocketDir() != dir; moved != tc.moved {
				t.Fatalf("SocketDir = %s for Dir %s; moved = %v, want %v", s.SocketDir(), dir, moved, tc.moved)
			}
			if got := psql(t, s, "SELECT 1"); got != "1" {
				t.Errorf("SELECT 1 = %q", got)
			}
			if tc.moved {
				fi, err := os.Lstat(s.SocketDir())
				if err != nil || fi.Mode().Perm() != 0o700 || ownerUID(fi) != s.acct.uid {
					t.Errorf("socket folder %s: %v, %v; want mode 0700 owned by the account", s.SocketDir(), fi.Mode(), err)
				}
				stop(t, s)
				if _, err := os.Stat(s.SocketDir()); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("socket folder left after Stop: %v", err)
				}
			}
		})
	}
}

func TestSecondStartRefused(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	s := startT(t, Options{Dir: dir, Fast: true})

	_, err := Start(context.Background(), Options{Dir: dir, Fast: true})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Start: %v; want ErrLocked", err)
	}
	if want := "held by pid " + strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if got := psql(t, s, "SELECT 1"); got != "1" {
		t.Errorf("first server disturbed: %q", got)
	}
}

func TestStopLeavesNoProcess(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	s := startT(t, Options{Dir: dir, Fast: true})
	pid := s.proc.pid()
	if len(processesIn(dir)) < 2 {
		t.Fatalf("expected the postmaster and its children in %s, found %v", dir, processesIn(dir))
	}
	stop(t, s)
	stop(t, s) // idempotent
	if alive(pid) {
		t.Errorf("postmaster %d still alive after Stop", pid)
	}
	if pids := processesIn(dir); len(pids) > 0 {
		t.Errorf("processes left in %s after Stop: %v", dir, pids)
	}
	if err, open := <-s.Wait(); err != nil || open {
		t.Errorf("Wait after Stop = %v, %v; want closed channel", err, open)
	}
	// The lock is released: the cluster starts again.
	startT(t, Options{Dir: dir, Fast: true})
}

func TestWaitReportsUnexpectedExit(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	s := startT(t, Options{Dir: dir, Fast: true})
	if err := syscall.Kill(s.proc.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.Wait():
		if err == nil || !strings.Contains(err.Error(), "exited unexpectedly") {
			t.Errorf("Wait = %v; want an unexpected-exit error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Wait reported nothing after the postmaster was killed")
	}
	// The children notice the postmaster's death and exit by themselves.
	if pids := waitNoProcessesIn(dir, 10*time.Second); len(pids) > 0 {
		t.Errorf("children left after postmaster death: %v", pids)
	}
}

func TestVersionMismatch(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PG_VERSION"), []byte("9.6\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "holds a PostgreSQL 9.6 cluster") {
		t.Errorf("Start on a 9.6 cluster: %v; want a version mismatch error", err)
	}
}

func TestNonEmptyFolderRefused(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("Start on a non-empty folder: %v; want a refusal", err)
	}
}

func TestConnString(t *testing.T) {
	t.Parallel()
	s := &Server{sockDir: "/tmp/a b"}
	want := "postgres://flopledger@/shop?host=%2Ftmp%2Fa%20b&port=54329&sslmode=disable"
	if got := s.ConnString("shop"); got != want {
		t.Errorf("ConnString = %s; want %s", got, want)
	}
}
