package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flopledger/flopledger/auth"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/pgtest"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/store"
)

func pgtestStore(t *testing.T) *store.Store { return pgtest.NewStore(t) }

// TestEveryRouteNeedsAKey walks the registered /v1 routes: without a key
// each answers 401 in the error shape, except the documented open ones.
func TestEveryRouteNeedsAKey(t *testing.T) {
	t.Parallel()
	s, e := newTestServer(readiness{})
	_ = s
	api := newAPI(t)
	n := 0
	for _, r := range e.Routes() {
		if !strings.HasPrefix(r.Path, "/v1/") || r.Path == "/v1/openapi.json" {
			continue
		}
		n++
		path := strings.NewReplacer(":name", "x", ":id", "1", ":workload", "w").Replace(r.Path)
		w := do(api, r.Method, path, "{}", "Authorization", "", "Content-Type", "application/json")
		if w.Code != 401 || errorBody(t, w).Code != "unauthorized" || w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s %s without a key: %d %s", r.Method, path, w.Code, w.Body)
		}
		w = do(api, r.Method, path, "{}", "Authorization", "Bearer flk_wrong", "Content-Type", "application/json")
		if w.Code != 401 {
			t.Errorf("%s %s with a wrong key: %d", r.Method, path, w.Code)
		}
	}
	if n < 30 {
		t.Fatalf("only %d routes walked", n)
	}
	if w := do(api, "GET", "/v1/openapi.json", "", "Authorization", ""); w.Code != 200 {
		t.Fatalf("the API description is open: %d", w.Code)
	}
}

func TestScopesAndRevocation(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	key := func(scopes string) (id, secret string) {
		w := do(api, "POST", "/v1/keys", `{"name": "k", "scopes": `+scopes+`}`)
		var b struct{ ID, Key string }
		if err := json.Unmarshal(w.Body.Bytes(), &b); w.Code != 201 || err != nil || !strings.HasPrefix(b.Key, "flk_") {
			t.Fatalf("create key: %d %s", w.Code, w.Body)
		}
		return b.ID, b.Key
	}
	ingestID, ingest := key(`["ingest"]`)
	_, read := key(`["read"]`)
	rec := `[{"id": "a", "occurred_at": "2026-10-01T00:00:00Z", "workload": "w", "model": "gpt2", "input_tokens": 10, "output_tokens": 5}]`
	cases := []struct {
		name, key, method, path, body string
		status                        int
	}{
		{"ingest may ingest", ingest, "POST", "/v1/usage", rec, 200},
		{"ingest may not read", ingest, "GET", "/v1/comparison?from=2026-10-01&to=2026-11-01", "", 403},
		{"read may estimate", read, "POST", "/v1/estimate", `{"model": "gpt2", "input_tokens": 5, "output_tokens": 1}`, 200},
		{"read may not ingest", read, "POST", "/v1/usage", rec, 403},
		{"read may not make keys", read, "POST", "/v1/keys", `{"name": "x", "scopes": ["admin"]}`, 403},
		{"read may not register models", read, "POST", "/v1/models", `{"name": "m", "stand_in_for": "gpt2"}`, 403},
	}
	for _, tc := range cases {
		w := do(api, tc.method, tc.path, tc.body, "Authorization", "Bearer "+tc.key)
		if w.Code != tc.status {
			t.Errorf("%s: %d %s", tc.name, w.Code, w.Body)
		}
		if tc.status == 403 && errorBody(t, w).Code != "forbidden" {
			t.Errorf("%s: %s", tc.name, w.Body)
		}
	}
	w := do(api, "GET", "/v1/keys", "")
	if strings.Contains(w.Body.String(), ingest) || !strings.Contains(w.Body.String(), ingestID) {
		t.Fatalf("the key list must name keys and never show a secret: %s", w.Body)
	}
	mustStatus(t, do(api, "DELETE", "/v1/keys/"+ingestID, ""), 204, "revoke")
	if w := do(api, "POST", "/v1/usage", rec, "Authorization", "Bearer "+ingest); w.Code != 401 {
		t.Fatalf("a revoked key: %d", w.Code)
	}
	if w := do(api, "POST", "/v1/keys", `{"name": "", "scopes": ["root"]}`); w.Code != 422 || !detailsName(errorBody(t, w).Details, "scopes[0]") || !detailsName(errorBody(t, w).Details, "name") {
		t.Fatalf("bad key input: %d %s", w.Code, w.Body)
	}
}

// TestRateLimit: past the per-key rate, 429 with Retry-After; other keys
// are not affected.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	st := pgtestStore(t)
	keys := auth.New(st, testAdminKey, func() time.Time { return testNow })
	h := New(Options{Logger: testLogger(), Auth: keys, Keys: keys, RateLimit: 0.001, RateBurst: 2, // one token per 1,000 s: no refill during the test
		Quotes: quote.New(catalog.New(st), tokens), Models: catalog.New(st)})
	body := `{"model": "gpt2", "input_tokens": 5, "output_tokens": 1}`
	for i := range 2 {
		if w := do(h, "POST", "/v1/estimate", body); w.Code != 200 {
			t.Fatalf("request %d within the burst: %d %s", i, w.Code, w.Body)
		}
	}
	w := do(h, "POST", "/v1/estimate", body)
	if w.Code != 429 || w.Header().Get("Retry-After") != "1000" || errorBody(t, w).Code != "rate_limited" {
		t.Fatalf("past the limit: %d %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	_, other, err := keys.Create(context.Background(), auth.CreateInput{Name: "other", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := do(h, "POST", "/v1/estimate", body, "Authorization", "Bearer "+other); w.Code != 200 {
		t.Fatalf("another key is not limited: %d", w.Code)
	}
}
