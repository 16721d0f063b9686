package web

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/usage"
)

// BenchmarkPages measures the server time of the heaviest pages over a
// month of 10 million requests: six workloads on three models and four
// teams, sent as daily buckets, so that the rollups hold what ten million
// records would leave there (2,232 rows; the pages never read the records
// themselves, so their number does not matter, only the rollups').
func BenchmarkPages(b *testing.B) {
	st := pgtest.NewStore(b)
	models := catalog.New(st)
	alerts, err := alert.New(st, alert.Config{RequestPlan: "list-price", FLOPsPlan: "flops-tariff"})
	if err != nil {
		b.Fatal(err)
	}
	api := New(Options{Logger: slog.New(slog.DiscardHandler), Models: models, Plans: st, Insights: st,
		Usage: usage.NewService(st, models, tokens, usage.Options{GroupTags: []string{"team"}}), Reports: report.New(st, []string{"team"}),
		Budgets: budget.New(st), Alerts: testAlerts{alerts}, DefaultRequestPlan: "list-price", DefaultFLOPsPlan: "flops-tariff",
		Now: func() time.Time { return testNow }})
	mustOK := func(method, path, body string, hdr ...string) {
		if w := do(api, method, path, body, hdr...); w.Code >= 300 {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
	}
	mustOK("POST", "/v1/plans", `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01", "prices": {"default": {"input_per_mtok": "3", "output_per_mtok": "15"}}}`)
	mustOK("POST", "/v1/plans", `{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.00001"}`)
	var nd strings.Builder
	n := 0
	for day := 1; day <= 31; day++ {
		for w := range 6 {
			for _, m := range []string{"llama-3.1-8b", "llama-3.1-70b", "mistral-7b-v0.3"} {
				for team := range 4 {
					fmt.Fprintf(&nd, `{"id": "k%d", "occurred_at": "2026-10-%02dT12:00:00Z", "workload": "w%d", "model": "%s", "requests": 4480, "input_tokens": %d, "output_tokens": %d, "latency_ms": 900, "tags": {"team": "t%d"}}`+"\n",
						n, day, w, m, 4480*(500+200*w), 4480*300, team)
					n++
				}
			}
		}
	}
	mustOK("POST", "/v1/usage", nd.String(), "Content-Type", "application/x-ndjson")
	for _, path := range []string{"/?month=2026-10", "/compare?month=2026-10&what_if=0.00003", "/workloads/w3?month=2026-10"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				if w := do(api, "GET", path, ""); w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
