package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestKilledMidImport kills flopledger (SIGKILL) in the middle of a large
// import, restarts it and imports the same file again: every record is
// stored exactly once and the rollups equal the sum of their records.
func TestKilledMidImport(t *testing.T) {
	t.Parallel()
	dbURL := startTestDB(t)
	const key = "flk_crash-test-admin-key-0123"
	var file bytes.Buffer
	const n = 40000
	for i := range n {
		fmt.Fprintf(&file, `{"id": "k%d", "occurred_at": "2026-10-%02dT%02d:00:00Z", "workload": "w%d", "model": "llama-3.1-8b", "input_tokens": %d, "output_tokens": %d, "latency_ms": %d}`+"\n",
			i, 1+i%28, i%24, i%5, 100+i%977, 1+i%311, 100+i%1000)
	}
	run := func() (*child, string) {
		addr := freeAddr(t)
		c := startChild(t, []string{"DATABASE_URL=" + dbURL, "FLOPLEDGER_ADDR=" + addr, "FLOPLEDGER_ADMIN_KEY=" + key, "FLOPLEDGER_DATA_DIR=" + t.TempDir()}, "serve")
		waitStatus(t, "http://"+addr+"/readyz", 200, 60*time.Second)
		return c, "http://" + addr
	}
	post := func(base string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", base+"/v1/import?format=ndjson", bytes.NewReader(file.Bytes()))
		req.Header.Set("Authorization", "Bearer "+key)
		return http.DefaultClient.Do(req)
	}

	first, base := run()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := post(base); err == nil {
			resp.Body.Close()
		}
	}()
	// Kill it once some chunks are in, but before the import ends.
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	count := func(q string) int64 {
		var v int64
		if err := conn.QueryRow(context.Background(), q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	deadline := time.Now().Add(60 * time.Second)
	for count(`SELECT count(*) FROM usage_ids`) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	first.stop(t, syscall.SIGKILL)
	<-done
	mid := count(`SELECT count(*) FROM usage_records`)
	t.Logf("killed with %d of %d records stored", mid, n)
	if mid == 0 || mid == n {
		t.Logf("the kill did not land mid-import (%d stored); the check below still holds", mid)
	}

	second, base := run()
	resp, err := post(base)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), fmt.Sprintf(`"accepted":%d`, n-mid)) {
		t.Fatalf("re-import: %d %s (want %d accepted)", resp.StatusCode, body, n-mid)
	}
	second.stop(t, syscall.SIGTERM)
	if got := count(`SELECT count(*) FROM usage_records`); got != n {
		t.Fatalf("%d records stored, want exactly %d", got, n)
	}
	if got := count(`SELECT count(*) FROM usage_ids`); got != n {
		t.Fatalf("%d ids, want %d", got, n)
	}
	var diff int64
	err = conn.QueryRow(context.Background(), `
		SELECT count(*) FROM (
			SELECT workload, (occurred_at AT TIME ZONE 'UTC')::date AS day, count(*) AS records, sum(input_tokens) AS input, sum(prefill_flops + decode_flops) AS flops
			FROM usage_records GROUP BY 1, 2) r
		FULL JOIN (SELECT workload, day, sum(records) AS records, sum(input_tokens) AS input, sum(prefill_flops + decode_flops) AS flops FROM usage_daily GROUP BY 1, 2) d
		USING (workload, day)
		WHERE r.records IS DISTINCT FROM d.records OR r.input IS DISTINCT FROM d.input OR r.flops IS DISTINCT FROM d.flops`).Scan(&diff)
	if err != nil || diff != 0 {
		t.Fatalf("rollups differ from the records in %d groups (%v)", diff, err)
	}
}

// TestSIGTERMDrains: SIGTERM during a large import lets the import finish
// and answer before the process exits (cleanly).
func TestSIGTERMDrains(t *testing.T) {
	t.Parallel()
	dbURL := startTestDB(t)
	const key = "flk_drain-test-admin-key-0123"
	var file bytes.Buffer
	const n = 30000
	for i := range n {
		fmt.Fprintf(&file, `{"id": "d%d", "occurred_at": "2026-10-%02dT10:00:00Z", "workload": "w%d", "model": "llama-3.1-8b", "input_tokens": %d, "output_tokens": 7}`+"\n", i, 1+i%28, i%3, 50+i%500)
	}
	addr := freeAddr(t)
	c := startChild(t, []string{"DATABASE_URL=" + dbURL, "FLOPLEDGER_ADDR=" + addr, "FLOPLEDGER_ADMIN_KEY=" + key, "FLOPLEDGER_DATA_DIR=" + t.TempDir()}, "serve")
	waitStatus(t, "http://"+addr+"/readyz", 200, 60*time.Second)
	type answer struct {
		status int
		body   string
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/import?format=ndjson", bytes.NewReader(file.Bytes()))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- answer{status: resp.StatusCode, body: string(b)}
	}()
	// Signal once the import is under way (its first chunk is stored).
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for i := 0; i < 6000; i++ {
		var ids int64
		_ = conn.QueryRow(context.Background(), `SELECT count(*) FROM usage_ids`).Scan(&ids)
		if ids > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.stop(t, syscall.SIGTERM) // fails the test unless the process exits cleanly
	a := <-got
	if a.err != nil || a.status != 200 || !strings.Contains(a.body, fmt.Sprintf(`"accepted":%d`, n)) {
		t.Fatalf("the import in flight at SIGTERM: %v %d %.300s", a.err, a.status, a.body)
	}
}

// TestDashboardSignInOnTheBinary signs in to the dashboard of the real
// binary with the environment's admin key and opens every page: what a
// newcomer does first, wiring included.
func TestDashboardSignInOnTheBinary(t *testing.T) {
	t.Parallel()
	dbURL := startTestDB(t)
	const key = "flk_dashboard-test-admin-key-01"
	addr := freeAddr(t)
	startChild(t, []string{"DATABASE_URL=" + dbURL, "FLOPLEDGER_ADDR=" + addr, "FLOPLEDGER_ADMIN_KEY=" + key, "FLOPLEDGER_DATA_DIR=" + t.TempDir()}, "serve")
	base := "http://" + addr
	waitStatus(t, base+"/readyz", 200, 60*time.Second)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := client.PostForm(base+"/signin", url.Values{"key": {key}, "next": {"/reports"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/reports" {
		t.Fatalf("sign in: %d, landed on %s", resp.StatusCode, resp.Request.URL)
	}
	for _, p := range []string{"/", "/compare", "/alerts", "/reports", "/estimate", "/models"} {
		resp, err := client.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Request.URL.Path != p {
			t.Errorf("%s: %d at %s", p, resp.StatusCode, resp.Request.URL)
		}
	}
}
