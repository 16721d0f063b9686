package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flopledger/flopledger/report"
)

func TestSignInFlow(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	anon := func(method, path, body string, hdr ...string) *http.Response {
		return do(api, method, path, body, append([]string{"Authorization", "", "Cookie", ""}, hdr...)...).Result()
	}
	// No session: the page sends the reader to sign in, and back.
	if r := anon("GET", "/compare?sort=delta", ""); r.StatusCode != 303 || r.Header.Get("Location") != "/signin?next="+url.QueryEscape("/compare?sort=delta") {
		t.Fatalf("no session: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	form := "Content-Type"
	if r := anon("POST", "/signin", "key=flk_nope&next=/compare", form, "application/x-www-form-urlencoded"); r.StatusCode != 401 {
		t.Fatalf("wrong key: %d", r.StatusCode)
	}
	r := anon("POST", "/signin", "key="+url.QueryEscape(testAdminKey)+"&next=//evil.example/", form, "application/x-www-form-urlencoded")
	cookie := r.Header.Get("Set-Cookie")
	if r.StatusCode != 303 || r.Header.Get("Location") != "/" || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict") {
		t.Fatalf("sign in: %d %q %q", r.StatusCode, r.Header.Get("Location"), cookie)
	}
	session := strings.SplitN(cookie, ";", 2)[0]
	if r := anon("GET", "/", "", "Cookie", session); r.StatusCode != 200 {
		t.Fatalf("signed in: %d", r.StatusCode)
	}
	// Over TLS (here, behind a proxy that says so) the cookie is Secure.
	r = anon("POST", "/signin", "key="+url.QueryEscape(testAdminKey), form, "application/x-www-form-urlencoded", "X-Forwarded-Proto", "https")
	if !strings.Contains(r.Header.Get("Set-Cookie"), "Secure") {
		t.Fatalf("no Secure cookie over TLS: %q", r.Header.Get("Set-Cookie"))
	}
	// A form without the session's CSRF token is refused.
	if r := anon("POST", "/reports", "month=2026-10", "Cookie", session, form, "application/x-www-form-urlencoded"); r.StatusCode != 403 {
		t.Fatalf("form without a CSRF token: %d", r.StatusCode)
	}
	// The session's GET reaches the API's downloads (the dashboard links them).
	if r := anon("GET", "/v1/reports", "", "Cookie", session); r.StatusCode != 200 {
		t.Fatalf("session on a /v1 GET: %d", r.StatusCode)
	}
	if r := anon("POST", "/v1/reports", `{"month": "2026-10"}`, "Cookie", session); r.StatusCode != 401 {
		t.Fatalf("a session cookie must not carry an API POST: %d", r.StatusCode)
	}
	if r := anon("POST", "/signout", "", "Cookie", session); r.StatusCode != 303 {
		t.Fatalf("sign out: %d", r.StatusCode)
	}
	if r := anon("GET", "/", "", "Cookie", session); r.StatusCode != 303 {
		t.Fatalf("after sign-out: %d", r.StatusCode)
	}

	// A key without the read scope cannot read the dashboard.
	w := do(api, "POST", "/v1/keys", `{"name": "gateway", "scopes": ["ingest"]}`)
	secret := between(w.Body.String(), `"key":"`, `"`)
	r = anon("POST", "/signin", "key="+url.QueryEscape(secret), form, "application/x-www-form-urlencoded")
	ingestSession := strings.SplitN(r.Header.Get("Set-Cookie"), ";", 2)[0]
	if r := anon("GET", "/", "", "Cookie", ingestSession); r.StatusCode != 403 {
		t.Fatalf("an ingest-only key on the dashboard: %d", r.StatusCode)
	}
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

func TestUnknownPageIsHTML(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "GET", "/no-such-page", "")
	checkHTML(t, w, 404, "unknown page")
	if w := do(api, "GET", "/v1/no-such-route", ""); w.Code != 404 || errorBody(t, w).Code != "not_found" {
		t.Fatalf("unknown API route: %d %s", w.Code, w.Body)
	}
}

// TestPagePanicInAParallelReadIsAPage: a page whose parallel reads panic
// (here: a server built without budgets or alerts) answers the HTML 500
// page; the process survives.
func TestPagePanicInAParallelReadIsAPage(t *testing.T) {
	t.Parallel()
	st := pgtestStore(t)
	h := New(Options{Logger: testLogger(), Reports: report.New(st, nil), Insights: st})
	w := do(h, "GET", "/", "")
	if w.Code != 500 || !strings.Contains(w.Body.String(), "<!doctype html>") {
		t.Fatalf("%d %.200s", w.Code, w.Body)
	}
}
