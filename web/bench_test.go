package web

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/usage"
)

// BenchmarkEstimateHandler measures POST /v1/estimate in process, through
// the whole engine (middleware included), for a catalog model given token
// counts: the server-side cost per request, without the network.
func BenchmarkEstimateHandler(b *testing.B) {
	models := catalog.New(nil)
	h := New(Options{Logger: slog.New(slog.DiscardHandler), Quotes: quote.New(models, tokens), Models: models})
	body := `{"model": "llama-3.1-8b", "input_tokens": 1500, "output_tokens": 300}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/v1/estimate", strings.NewReader(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Body.String())
		}
	}
}

// BenchmarkIngestNDJSON posts batches of 5,000 new records through the real
// handler into a real PostgreSQL: the server side of POST /v1/usage.
func BenchmarkIngestNDJSON(b *testing.B) {
	st := pgtest.NewStore(b)
	models := catalog.New(st)
	h := New(Options{Logger: slog.New(slog.DiscardHandler), Usage: usage.NewService(st, models, tokens, usage.Options{GroupTags: []string{"team"}})})
	const batch = 5000
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		var body strings.Builder
		for range batch {
			fmt.Fprintf(&body, `{"id":"r%d","occurred_at":"2026-10-%02dT10:00:00Z","workload":"w%d","model":"llama-3.1-8b","input_tokens":%d,"cached_input_tokens":100,"output_tokens":300,"latency_ms":900,"tags":{"team":"care"}}`+"\n", n, 1+n%28, n%6, 150+n%1000)
			n++
		}
		req := httptest.NewRequest("POST", "/v1/usage", strings.NewReader(body.String()))
		req.Header.Set("Content-Type", "application/x-ndjson")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Body.String())
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}
