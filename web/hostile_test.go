package web

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// endless is a body of n bytes that never exists in memory at once.
type endless struct{ left int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), e.left)
	for i := range p[:n] {
		p[i] = '['
	}
	e.left -= n
	return int(n), nil
}

// TestHostileInput sends what a careless or hostile client might: nothing
// panics, nothing answers 5xx, and every answer is the API's error shape.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	cases := []struct {
		name, method, path, ctype, body string
		status                          int
	}{
		{"deeply nested JSON", "POST", "/v1/estimate", "application/json", deep, 400},
		{"deeply nested usage", "POST", "/v1/usage", "application/json", deep, 400},
		{"NaN for a count", "POST", "/v1/estimate", "application/json", `{"model": "gpt2", "input_tokens": NaN, "output_tokens": 1}`, 400},
		{"infinity", "POST", "/v1/usage", "application/json", `[{"id": "a", "input_tokens": Infinity}]`, 400},
		{"a huge number", "POST", "/v1/usage", "application/json", `[{"id": "a", "occurred_at": "2026-10-01T00:00:00Z", "workload": "w", "model": "gpt2", "input_tokens": 1` + strings.Repeat("0", 400) + `, "output_tokens": 1}]`, 200},
		{"invalid UTF-8", "POST", "/v1/usage", "application/x-ndjson", "{\"id\": \"\xff\xfe\", \"occurred_at\": \"2026-10-01T00:00:00Z\", \"workload\": \"w\xc3\x28\", \"model\": \"gpt2\", \"input_tokens\": 5, \"output_tokens\": 1}", 200},
		{"a year out of range", "POST", "/v1/usage", "application/json", `[{"id": "a", "occurred_at": "9999-12-31T23:59:59Z", "workload": "w", "model": "gpt2", "input_tokens": 5, "output_tokens": 1}]`, 200},
		{"a null body", "POST", "/v1/estimate", "application/json", `null`, 422},
		{"an architecture of extremes", "POST", "/v1/estimate", "application/json", `{"architecture": {"d_model": 10000000, "n_layers": 10000000, "n_heads": 10000000, "d_ff": 10000000, "mlp": "gated", "vocab": 10000000}, "input_tokens": 1000000000000000, "output_tokens": 1000000000000000}`, 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(api, tc.method, tc.path, tc.body, "Content-Type", tc.ctype)
			if w.Code >= 500 || w.Code != tc.status {
				t.Fatalf("status %d, want %d: %.300s", w.Code, tc.status, w.Body)
			}
			if w.Code >= 400 {
				errorBody(t, w)
			} else if !strings.Contains(w.Body.String(), `"rejected":[{`) {
				t.Fatalf("the bad record must be rejected with its field: %s", w.Body)
			}
		})
	}
	// A 1 GB body is cut off at the limit, not read to the end.
	req := httptest.NewRequest("POST", "/v1/usage", &endless{left: 1 << 30})
	req.Header.Set("Authorization", "Bearer "+testAdminKey)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	api.ServeHTTP(w, req)
	if w.Code != 413 || errorBody(t, w).Code != "body_too_large" {
		t.Fatalf("1 GB body: %d %.200s", w.Code, w.Body)
	}
}
