// Command ingest-client posts an NDJSON file to POST /v1/usage in batches
// from several concurrent workers and reports records per second.
//
//	ingest-client -url http://127.0.0.1:18282/v1/usage -file usage.ndjson -batch 5000 -workers 2
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:18282/v1/usage", "endpoint")
	file := flag.String("file", "", "NDJSON records")
	batch := flag.Int("batch", 5000, "records per request")
	workers := flag.Int("workers", 2, "concurrent requests")
	key := flag.String("key", "", "API key (scope ingest)")
	flag.Parse()
	f, err := os.Open(*file)
	if err != nil {
		log.Fatal(err)
	}
	var batches [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur bytes.Buffer
	n, total := 0, 0
	for sc.Scan() {
		cur.Write(sc.Bytes())
		cur.WriteByte('\n')
		n++
		total++
		if n == *batch {
			batches = append(batches, bytes.Clone(cur.Bytes()))
			cur.Reset()
			n = 0
		}
	}
	if n > 0 {
		batches = append(batches, bytes.Clone(cur.Bytes()))
	}
	jobs := make(chan []byte)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	start := time.Now()
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				req, _ := http.NewRequest("POST", *url, bytes.NewReader(b))
				req.Header.Set("Content-Type", "application/x-ndjson")
				req.Header.Set("Authorization", "Bearer "+*key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					log.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					log.Fatalf("%s: %s", resp.Status, body)
				}
				var r struct{ Accepted int }
				_ = json.Unmarshal(body, &r)
				mu.Lock()
				accepted += r.Accepted
				mu.Unlock()
			}
		}()
	}
	for _, b := range batches {
		jobs <- b
	}
	close(jobs)
	wg.Wait()
	took := time.Since(start)
	fmt.Printf("http ingest: %d records (%d accepted) in %.2fs = %.0f records/s (batch %d, %d workers)\n",
		total, accepted, took.Seconds(), float64(total)/took.Seconds(), *batch, *workers)
}
