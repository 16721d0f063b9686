// Command gen-usage writes synthetic usage records for the benchmarks: as
// NDJSON (what clients send to POST /v1/usage) and, for the same records,
// as CSV rows of the usage_records table with their FLOPs computed by the
// estimator (what `psql \copy` loads), so that both paths store the same rows.
//
//	gen-usage -n 200000 -ndjson usage.ndjson -csv usage.csv
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"time"

	"github.com/flopledger/flopledger/estimator"
)

type shape struct {
	workload, model string
	in, out, cached int64
}

// The workloads of MISSION.md: short prompts and long answers, long
// prompts and short answers, retrieval, batch work.
var shapes = []shape{
	{"support-chat", "llama-3.1-8b", 150, 400, 0},
	{"code-assistant", "qwen2.5-72b", 60000, 200, 40000},
	{"rag-search", "llama-3.1-70b", 6000, 300, 2000},
	{"summarisation", "mixtral-8x7b", 12000, 500, 0},
	{"batch-classification", "llama-3.2-3b", 800, 5, 600},
	{"agent", "qwen3-30b-a3b", 20000, 1500, 15000},
}

func main() {
	n := flag.Int("n", 100000, "records")
	workloads := flag.Int("workloads", len(shapes), "distinct workloads (names repeat the six shapes with a suffix beyond six)")
	days := flag.Int("days", 30, "spread over this many days")
	start := flag.String("start", "2026-10-01", "first day (UTC)")
	ndjsonPath := flag.String("ndjson", "", "NDJSON output")
	csvPath := flag.String("csv", "", "CSV output (usage_records columns)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	day0, err := time.Parse("2006-01-02", *start)
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(*seed, 2))
	var nd, cs *bufio.Writer
	if *ndjsonPath != "" {
		f, err := os.Create(*ndjsonPath)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		nd = bufio.NewWriterSize(f, 1<<20)
		defer nd.Flush()
	}
	if *csvPath != "" {
		f, err := os.Create(*csvPath)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		cs = bufio.NewWriterSize(f, 1<<20)
		defer cs.Flush()
	}
	prepared := map[string]*estimator.Prepared{}
	for _, s := range shapes {
		m, ok := estimator.Lookup(s.model)
		if !ok {
			log.Fatalf("unknown model %s", s.model)
		}
		p, err := estimator.Prepare(m.Architecture)
		if err != nil {
			log.Fatal(err)
		}
		prepared[s.model] = p
	}
	span := int64(*days) * 86400
	for i := range *n {
		w := i % *workloads
		s := shapes[w%len(shapes)]
		name := s.workload
		if w >= len(shapes) {
			name = fmt.Sprintf("%s-%d", s.workload, w/len(shapes))
		}
		jitter := func(v int64) int64 { return max(1, v/2+rng.Int64N(v+1)) }
		in, out := jitter(s.in), rng.Int64N(2*s.out+1)
		cached := min(in-1, s.cached*in/max(s.in, 1))
		at := day0.Add(time.Duration(rng.Int64N(span)) * time.Second)
		id := fmt.Sprintf("bench-%d-%d", *seed, i)
		team := []string{"care", "dev", "search", "docs", "ops", "ai"}[w%len(shapes)]
		if nd != nil {
			rec := map[string]any{"id": id, "occurred_at": at.Format(time.RFC3339), "workload": name, "model": s.model,
				"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out, "latency_ms": 200 + rng.Int64N(3000),
				"tags": map[string]string{"team": team}}
			b, _ := json.Marshal(rec)
			nd.Write(b)
			nd.WriteByte('\n')
		}
		if cs != nil {
			pre, dec, err := prepared[s.model].Totals(estimator.Request{InputTokens: in, CachedInputTokens: cached, OutputTokens: out, Requests: 1})
			if err != nil {
				log.Fatal(err)
			}
			fmt.Fprintf(cs, "%s,%s,%s,%s,%d,%d,%d,1,%d,,\"{\"\"team\"\": \"\"%s\"\"}\",,%s,%s,1\n",
				id, at.Format(time.RFC3339), name, s.model, in, cached, out, 200+rng.Int64N(3000), team, pre, dec)
		}
	}
}
