package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestAccessLogClientIP: by default the access log names the peer, whatever
// X-Forwarded-For a client sends; behind a trusted proxy it names the
// client the proxy reports.
func TestAccessLogClientIP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		proxies []string
		want    string
	}{
		{"no proxy trusted: the peer", nil, "192.0.2.1"},
		{"the peer is a trusted proxy: its client", []string{"192.0.2.0/24"}, "203.0.113.9"},
		{"another proxy is trusted: still the peer", []string{"198.51.100.7"}, "192.0.2.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var out bytes.Buffer
			log := slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				return out.Write(p)
			}), nil))
			h := New(Options{Logger: log, TrustedProxies: tc.proxies})
			req := httptest.NewRequest("GET", "/healthz", nil)
			req.RemoteAddr = "192.0.2.1:4321"
			req.Header.Set("X-Forwarded-For", "203.0.113.9")
			h.ServeHTTP(httptest.NewRecorder(), req)
			mu.Lock()
			defer mu.Unlock()
			var line struct {
				Msg      string `json:"msg"`
				ClientIP string `json:"client_ip"`
			}
			if err := json.Unmarshal(out.Bytes(), &line); err != nil || line.Msg != "http request" {
				t.Fatalf("access log: %q %v", out.String(), err)
			}
			if line.ClientIP != tc.want {
				t.Fatalf("client_ip = %q, want %q", line.ClientIP, tc.want)
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
