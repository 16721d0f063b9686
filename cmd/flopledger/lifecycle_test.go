package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flopledger/flopledger/pgembed"
)

// child is a flopledger process started from the test binary (see TestMain).
type child struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	done chan error
}

func startChild(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "FLOPLEDGER_TEST_MAIN=1", "FLOPLEDGER_TEST_ARGS="+string(a))...)
	c := &child{cmd: cmd, done: make(chan error, 1)}
	cmd.Stdout = &syncWriter{c: c}
	cmd.Stderr = &syncWriter{c: c}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-c.done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
			}
		}
		if t.Failed() {
			t.Logf("flopledger output:\n%s", c.output())
		}
	})
	return c
}

type syncWriter struct{ c *child }

func (w *syncWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	return w.c.logs.Write(p)
}

func (c *child) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logs.String()
}

// logged reports whether a JSON log line has msg and every key=value given.
func (c *child) logged(msg string, kv map[string]any) bool {
	sc := bufio.NewScanner(strings.NewReader(c.output()))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil || line["msg"] != msg {
			continue
		}
		ok := true
		for k, v := range kv {
			if line[k] != v {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (c *child) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-c.done:
		if sig != syscall.SIGKILL && err != nil {
			t.Fatalf("flopledger exited with %v after %v", err, sig)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("flopledger did not exit within 60s of %v", sig)
	}
}

// postgresProcesses lists the pids of postgres processes whose command line
// names dir: what must be gone after a clean stop.
func postgresProcesses(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		s := string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		if strings.Contains(s, "postgres") && strings.Contains(s, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestEmbeddedLifecycle is the newcomer's path: start with no DATABASE_URL,
// be ready, stop with Ctrl-C leaving no postgres behind, start again on the
// same data, survive kill -9, stop with SIGTERM.
func TestEmbeddedLifecycle(t *testing.T) {
	t.Parallel()
	dataDir := tempDataDir(t)
	addr := freeAddr(t)
	env := []string{"DATABASE_URL=", "FLOPLEDGER_DATA_DIR=" + dataDir, "FLOPLEDGER_ADDR=" + addr, "FLOPLEDGER_LOG_FORMAT=json"}
	base := "http://" + addr

	first := startChild(t, env, "serve")
	waitStatus(t, base+"/healthz", 200, 60*time.Second)
	waitStatus(t, base+"/readyz", 200, 60*time.Second)
	if first.logged("schema current", map[string]any{"applied": float64(0)}) || !first.logged("schema current", nil) {
		t.Fatalf("first start did not migrate a fresh database:\n%s", first.output())
	}
	first.stop(t, syscall.SIGINT)
	if pids := postgresProcesses(dataDir); len(pids) > 0 {
		t.Fatalf("postgres processes left after Ctrl-C: %v", pids)
	}

	second := startChild(t, env, "serve")
	waitStatus(t, base+"/readyz", 200, 60*time.Second)
	if !second.logged("schema current", map[string]any{"applied": float64(0)}) {
		t.Fatalf("second start did not reuse the data (it migrated again):\n%s", second.output())
	}
	second.stop(t, syscall.SIGKILL)

	third := startChild(t, env, "serve")
	waitStatus(t, base+"/readyz", 200, 60*time.Second)
	if !third.logged("schema current", map[string]any{"applied": float64(0)}) {
		t.Fatalf("start after kill -9 lost the data:\n%s", third.output())
	}
	third.stop(t, syscall.SIGTERM)
	if pids := postgresProcesses(dataDir); len(pids) > 0 {
		t.Fatalf("postgres processes left after SIGTERM: %v", pids)
	}
}

// record is one usage record, for ingest tests.
const record = `[{"id": "r1", "occurred_at": "2026-10-01T00:00:00Z", "workload": "w", "model": "gpt2", "input_tokens": 10, "output_tokens": 5}]`

// TestReadyzFollowsDatabase: with an external database that goes away,
// /readyz says 503 with the reason, and 200 again once it is back, without
// restarting flopledger.
func TestReadyzFollowsDatabase(t *testing.T) {
	t.Parallel()
	pgDir := filepath.Join(tempDataDir(t), "pg")
	ctx := context.Background()
	db, err := pgembed.Start(ctx, pgembed.Options{Dir: pgDir, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Stop(context.Background()) })
	addr := freeAddr(t)
	base := "http://" + addr

	runCtx, cancel := context.WithCancel(ctx)
	exited := make(chan int, 1)
	var logs bytes.Buffer
	const key = "flk_a-test-admin-key-long-enough"
	env := map[string]string{"DATABASE_URL": db.ConnString("flopledger"), "FLOPLEDGER_ADDR": addr, "FLOPLEDGER_DATA_DIR": t.TempDir(), "FLOPLEDGER_ADMIN_KEY": key}
	post := func() (*http.Response, error) {
		req, _ := http.NewRequest("POST", base+"/v1/usage", strings.NewReader(record))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		return http.DefaultClient.Do(req)
	}
	go func() {
		exited <- run(runCtx, []string{"serve"}, func(k string) string { return env[k] }, &bytes.Buffer{}, &lockedBuffer{b: &logs})
	}()

	waitStatus(t, base+"/readyz", 200, 60*time.Second)
	if err := db.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	body := waitStatus(t, base+"/readyz", 503, 30*time.Second)
	if !strings.Contains(body, `"not_ready"`) || !strings.Contains(body, "database unreachable") {
		t.Fatalf("503 without the reason: %s", body)
	}
	waitStatus(t, base+"/healthz", 200, 5*time.Second)
	// Ingest while the database is down: 503 with Retry-After, nothing lost
	// on the client's side (it retries).
	resp, err := post()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("ingest with the database down: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	db, err = pgembed.Start(ctx, pgembed.Options{Dir: pgDir, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, base+"/readyz", 200, 30*time.Second)
	// The retry succeeds, without a restart.
	for i := 0; ; i++ {
		resp, err := post()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && strings.Contains(string(b), `"accepted":1`) {
			break
		}
		if i == 50 {
			t.Fatalf("ingest after the database came back: %d %s", resp.StatusCode, b)
		}
		time.Sleep(100 * time.Millisecond)
	}

	cancel()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("serve exited %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
