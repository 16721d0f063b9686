package pgembed

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sharedDir is a fresh folder that the postgres account can traverse
// (t.TempDir() is 0700 root when tests run as root), removed after the test
// unless it failed, so that a failing cluster can be inspected.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgembed-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept %s for inspection", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// startT starts a server that is stopped when the test ends, and logs how
// long the start took.
func startT(t *testing.T, o Options) *Server {
	t.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	begin := time.Now()
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Start took %v (fast=%v)", time.Since(begin).Round(time.Millisecond), o.Fast)
	t.Cleanup(func() { stop(t, s) })
	return s
}

func stop(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
}

// psql runs SQL through the server's ConnString, which checks that the
// string is one libpq understands.
func psql(t *testing.T, s *Server, sql string) string {
	t.Helper()
	out, err := psqlRun(s, sql)
	if err != nil {
		t.Fatalf("psql %q: %v: %s", sql, err, out)
	}
	return out
}

func psqlRun(s *Server, sql string) (string, error) {
	cmd := exec.Command(filepath.Join(s.binDir, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
		"-d", s.ConnString(""), "-c", sql)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// processesIn lists processes whose working folder is dir: the postmaster
// and all its children chdir into the data folder.
func processesIn(dir string) []int {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && cwd == real {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitNoProcessesIn waits for the processes in dir to go, up to d.
func waitNoProcessesIn(dir string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		pids := processesIn(dir)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
}
