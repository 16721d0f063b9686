package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/pgembed"
)

// TestDatabaseStopsUnderLoad: clients keep sending batches (and retrying
// what failed, as the 503's Retry-After asks) while PostgreSQL stops and
// starts again under flopledger. Every answer is 200 or 503, never 500;
// after the outage every record is stored exactly once and the rollups
// equal their records.
func TestDatabaseStopsUnderLoad(t *testing.T) {
	t.Parallel()
	pgDir := filepath.Join(tempDataDir(t), "pg")
	ctx := context.Background()
	db, err := pgembed.Start(ctx, pgembed.Options{Dir: pgDir, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Stop(context.Background()) })
	url := db.ConnString("flopledger")
	const key = "flk_outage-test-admin-key-0123"
	addr := freeAddr(t)
	startChild(t, []string{"DATABASE_URL=" + url, "FLOPLEDGER_ADDR=" + addr, "FLOPLEDGER_ADMIN_KEY=" + key, "FLOPLEDGER_DATA_DIR=" + t.TempDir(), "FLOPLEDGER_RATE_LIMIT=0"}, "serve")
	base := "http://" + addr
	waitStatus(t, base+"/readyz", 200, 60*time.Second)

	const clients, batches, perBatch = 4, 25, 200
	var status200, status503, other atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for b := 0; b < batches; {
				var body bytes.Buffer
				for r := range perBatch {
					fmt.Fprintf(&body, `{"id": "c%d-b%d-r%d", "occurred_at": "2026-10-%02dT12:00:00Z", "workload": "w%d", "model": "llama-3.1-8b", "input_tokens": %d, "output_tokens": 9}`+"\n",
						c, b, r, 1+r%28, c, 100+r)
				}
				req, _ := http.NewRequest("POST", base+"/v1/usage", &body)
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/x-ndjson")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					other.Add(1)
					time.Sleep(100 * time.Millisecond)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					status200.Add(1)
					b++ // next batch; a failed one is sent again, whole
				case 503:
					status503.Add(1)
					time.Sleep(100 * time.Millisecond)
				default:
					other.Add(1)
					t.Errorf("status %d during the outage", resp.StatusCode)
					return
				}
				if stop.Load() {
					return
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	if err := db.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if db, err = pgembed.Start(ctx, pgembed.Options{Dir: pgDir, Fast: true}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		stop.Store(true)
		t.Fatal("the clients did not finish after the database came back")
	}
	t.Logf("answers: %d × 200, %d × 503, %d other", status200.Load(), status503.Load(), other.Load())
	if status503.Load() == 0 {
		t.Log("no request met the outage (it fell between batches); the counts below still hold")
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var records, rolled int64
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM usage_records), (SELECT sum(records) FROM usage_daily)`).Scan(&records, &rolled); err != nil {
		t.Fatal(err)
	}
	if records != clients*batches*perBatch || rolled != records {
		t.Fatalf("%d records and %d in the rollups, want %d of each", records, rolled, clients*batches*perBatch)
	}
}

// TestSlowClientIsCutOff: a client that sends its headers and part of a
// body, then nothing, is disconnected after the request timeout, and
// others are served meanwhile.
func TestSlowClientIsCutOff(t *testing.T) {
	t.Parallel()
	dbURL := startTestDB(t)
	addr := freeAddr(t)
	startChild(t, []string{"DATABASE_URL=" + dbURL, "FLOPLEDGER_ADDR=" + addr, "FLOPLEDGER_ADMIN_KEY=flk_slow-client-test-key-0123", "FLOPLEDGER_DATA_DIR=" + t.TempDir(), "FLOPLEDGER_REQUEST_TIMEOUT=2s"}, "serve")
	waitStatus(t, "http://"+addr+"/readyz", 200, 60*time.Second)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/usage HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer flk_slow-client-test-key-0123\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n[{\"id\": ")
	start := time.Now()
	waitStatus(t, "http://"+addr+"/healthz", 200, 5*time.Second) // others are served
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	reply, _ := io.ReadAll(conn) // returns when the server closes the connection
	took := time.Since(start)
	if took > 20*time.Second {
		t.Fatalf("the slow client held its connection for %s", took)
	}
	var shape struct{ Error struct{ Code string } }
	_, body, _ := bytes.Cut(reply, []byte("\r\n\r\n"))
	if len(reply) > 0 && json.Unmarshal(bytes.TrimSpace(body), &shape) == nil && shape.Error.Code == "" {
		t.Fatalf("an answer to the slow client that is not the error shape: %q", reply)
	}
	t.Logf("cut off after %s: %q", took.Round(100*time.Millisecond), firstLine(reply))
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\r\n"))
	return string(line)
}
