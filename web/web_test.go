package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

type readiness struct{ err error }

func (r readiness) Ready(context.Context) error { return r.err }

func newTestServer(ready Readiness) (*Server, *gin.Engine) {
	reg := prometheus.NewRegistry()
	s := &Server{log: testLogger(), ready: ready, metrics: newHTTPMetrics(reg), gather: reg, version: "test"}
	return s, s.engine()
}

// do sends a request to h as the test admin, unless hdr sets
// Authorization itself (to "" for none).
func do(h http.Handler, method, path string, body string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testAdminKey)
	if sess, ok := testSessions.Load(h); ok && !strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/signin") {
		// Pages go by the session cookie of the test admin's sign-in.
		req.Header.Set("Cookie", SessionCookie+"="+sess.(testSession).token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// testSession is the dashboard sign-in newAPIWith makes for a handler.
type testSession struct{ token, csrf string }

// testSessions maps each test handler to its session.
var testSessions sync.Map

// errorBody decodes the API's one error shape and fails on anything else.
func errorBody(t *testing.T, w *httptest.ResponseRecorder) Error {
	t.Helper()
	var b struct {
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || b.Error == nil || b.Error.Code == "" || b.Error.Message == "" {
		t.Fatalf("body is not the error shape: %s (%v)", w.Body.String(), err)
	}
	return *b.Error
}

func TestProbes(t *testing.T) {
	t.Parallel()
	_, ok := newTestServer(readiness{})
	if w := do(ok, "GET", "/healthz", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `"ok"`) {
		t.Fatalf("healthz: %d %s", w.Code, w.Body)
	}
	if w := do(ok, "GET", "/readyz", ""); w.Code != 200 {
		t.Fatalf("readyz when ready: %d %s", w.Code, w.Body)
	}
	_, down := newTestServer(readiness{errors.New("database unreachable: connection refused")})
	w := do(down, "GET", "/readyz", "")
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("readyz when not ready: got %d", w.Code)
	}
	if e := errorBody(t, w); e.Code != "not_ready" || !strings.Contains(e.Message, "connection refused") {
		t.Fatalf("readyz reason not given: %+v", e)
	}
	if w := do(down, "GET", "/healthz", ""); w.Code != 200 {
		t.Fatalf("healthz must not depend on the database: %d", w.Code)
	}
}

func TestErrorShapeAndRequestID(t *testing.T) {
	t.Parallel()
	s, e := newTestServer(readiness{})
	e.GET("/v1/panics", func(*gin.Context) { panic("boom") })
	e.GET("/v1/fails", func(c *gin.Context) { s.fail(c, errors.New("secret detail from the database")) })

	cases := []struct {
		name, method, path string
		status             int
		code               string
	}{
		{"unknown route", "GET", "/v1/nope", 404, "not_found"},
		{"wrong method", "DELETE", "/healthz", 405, "method_not_allowed"},
		{"panic", "GET", "/v1/panics", 500, "internal"},
		{"internal error", "GET", "/v1/fails", 500, "internal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(e, tc.method, tc.path, "")
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			got := errorBody(t, w)
			if got.Code != tc.code {
				t.Fatalf("code %q, want %q", got.Code, tc.code)
			}
			id := w.Header().Get("X-Request-ID")
			if id == "" {
				t.Fatal("no X-Request-ID on the response")
			}
			if tc.status == 500 && (!strings.Contains(got.Message, id) || strings.Contains(w.Body.String(), "secret")) {
				t.Fatalf("a 500 must quote the request id and hide the cause: %s", w.Body)
			}
		})
	}
}

func TestRequestIDFromClient(t *testing.T) {
	t.Parallel()
	_, e := newTestServer(readiness{})
	if got := do(e, "GET", "/healthz", "", "X-Request-ID", "abc-123").Header().Get("X-Request-ID"); got != "abc-123" {
		t.Fatalf("a well-formed client id must be kept, got %q", got)
	}
	if got := do(e, "GET", "/healthz", "", "X-Request-ID", "bad id\n").Header().Get("X-Request-ID"); got == "" || strings.Contains(got, " ") {
		t.Fatalf("a malformed client id must be replaced, got %q", got)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	_, e := newTestServer(readiness{})
	do(e, "GET", "/healthz", "")
	do(e, "GET", "/v1/does-not-exist/123", "")
	w := do(e, "GET", "/metrics", "")
	body, _ := io.ReadAll(w.Body)
	for _, want := range []string{
		`flopledger_http_requests_total{method="GET",route="/healthz",status="200"} 1`,
		`flopledger_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`flopledger_http_request_duration_seconds_bucket{method="GET",route="/healthz",status="200",le="+Inf"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestOpenAPICoversRoutes keeps the OpenAPI document whole: every /v1 route
// registered on the engine must be described, with its method.
func TestOpenAPICoversRoutes(t *testing.T) {
	t.Parallel()
	_, e := newTestServer(readiness{})
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("not an OpenAPI 3 document: %q", doc.OpenAPI)
	}
	n := 0
	for _, r := range e.Routes() {
		if !strings.HasPrefix(r.Path, "/v1/") {
			continue
		}
		n++
		p := ginPathToOpenAPI(r.Path)
		if _, ok := doc.Paths[p][strings.ToLower(r.Method)]; !ok {
			t.Errorf("route %s %s is not in web/openapi.json (as %s)", r.Method, r.Path, p)
		}
	}
	if n == 0 {
		t.Fatal("no /v1 routes found: the test would pass vacuously")
	}
	w := do(e, "GET", "/v1/openapi.json", "")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || w.Body.Len() != len(openAPIDoc) {
		t.Fatalf("GET /v1/openapi.json: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
}

// ginPathToOpenAPI turns /v1/models/:name into /v1/models/{name}.
func ginPathToOpenAPI(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}
