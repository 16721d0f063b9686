package web

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/quote"
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
