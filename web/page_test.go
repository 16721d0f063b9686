package web

import (
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/estimator"
)

// getPage fetches a page and checks that it is HTML with the status.
func getPage(t *testing.T, h http.Handler, path string, status int) string {
	t.Helper()
	w := do(h, "GET", path, "")
	checkHTML(t, w, status, "GET "+path)
	return w.Body.String()
}

func checkHTML(t *testing.T, w *httptest.ResponseRecorder, status int, what string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("%s: status %d, want %d: %s", what, w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Fatalf("%s: Content-Type %q", what, ct)
	}
	body := w.Body.String()
	if !strings.HasPrefix(body, "<!doctype html>") || !strings.Contains(body, `<nav aria-label="Main">`) || !strings.Contains(body, "</footer>") {
		t.Fatalf("%s: not a whole page: %.300s", what, body)
	}
}

// postForm posts a form as the signed-in test admin, with the session's
// CSRF token (as the page's hidden field would send it).
func postForm(h http.Handler, path, form string) *httptest.ResponseRecorder {
	if sess, ok := testSessions.Load(h); ok {
		if form != "" {
			form += "&"
		}
		form += "csrf=" + url.QueryEscape(sess.(testSession).csrf)
	}
	return do(h, "POST", path, form, "Content-Type", "application/x-www-form-urlencoded")
}

// mustContain fails unless the page holds every string.
func mustContain(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

// dashboardPages are every page a reader can open without input.
var dashboardPages = []string{"/", "/compare", "/alerts", "/reports", "/estimate", "/models"}

func TestPagesOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	for _, p := range dashboardPages {
		body := getPage(t, api, p, 200)
		if strings.Contains(body, "ZgotmplZ") {
			t.Errorf("%s: a value was refused by the template escaper", p)
		}
	}
	mustContain(t, "overview", getPage(t, api, "/", 200), "No comparison yet", `no plan is called &#34;list-price&#34;`, "No usage in October 2026", "No open alerts")
	mustContain(t, "compare", getPage(t, api, "/compare", 200), `no plan is called &#34;list-price&#34;`)
	mustContain(t, "models", getPage(t, api, "/models", 200), "llama-3.1-8b", "No price plans yet")
}

// seedDashboard is a month of three workloads on llama-3.1-8b under a $3/M
// input, $15/M output price list and a $0.00001/TFLOP tariff:
//
//   - support-chat: 1,000 requests of 150 in / 400 out on 1–10 October,
//     $6.45 under the price list, with latencies;
//   - code-assistant: 100 requests of 60,000 in / 200 out, $18.30;
//   - rag-search: a whitespace-bloat episode on 15 October (25 records of
//     100 in / 50 out, 10 of them bloat), $0.02625, which the evaluation
//     on the 16th turns into one open alert;
//
// plus a record of a model nobody registered, and a $10 budget for
// support-chat in October.
func seedDashboard(t *testing.T, api http.Handler) (alertID string) {
	t.Helper()
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01",
		"prices": {"default": {"input_per_mtok": "3", "output_per_mtok": "15"}}}`), 201, "request plan")
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.00001"}`), 201, "flops plan")
	var nd strings.Builder
	for i := range 10 { // buckets of 100 requests each
		fmt.Fprintf(&nd, `{"id": "s%d", "occurred_at": "2026-10-%02dT10:00:00Z", "workload": "support-chat", "model": "llama-3.1-8b", "requests": 100, "input_tokens": 15000, "output_tokens": 40000, "latency_ms": %d, "tags": {"team": "care"}}`+"\n", i, 1+i, 800+10*i)
		fmt.Fprintf(&nd, `{"id": "c%d", "occurred_at": "2026-10-%02dT11:00:00Z", "workload": "code-assistant", "model": "llama-3.1-8b", "requests": 10, "input_tokens": 600000, "output_tokens": 2000}`+"\n", i, 1+i)
	}
	for i := range 25 {
		fmt.Fprintf(&nd, `{"id": "b%d", "occurred_at": "2026-10-15T%02d:00:00Z", "workload": "rag-search", "model": "llama-3.1-8b", "input_tokens": 100, "output_tokens": 50, "bloat_tokens": 10}`+"\n", i, i%24)
	}
	nd.WriteString(`{"id": "m1", "occurred_at": "2026-10-03T09:00:00Z", "workload": "support-chat", "model": "mystery-model", "input_tokens": 10, "output_tokens": 10}` + "\n")
	mustStatus(t, do(api, "POST", "/v1/usage", nd.String(), "Content-Type", "application/x-ndjson"), 200, "usage")
	mustStatus(t, do(api, "PUT", "/v1/budgets/support-chat", `{"month": "2026-10", "kind": "money", "plan": "list-price", "amount": "10"}`), 200, "budget")
	w := do(api, "POST", "/v1/alerts/evaluate", "")
	m := regexp.MustCompile(`"id":(\d+)`).FindStringSubmatch(w.Body.String())
	if w.Code != 200 || m == nil || strings.Count(w.Body.String(), `"kind":`) != 1 {
		t.Fatalf("evaluate: %d %s", w.Code, w.Body)
	}
	return m[1]
}

// seededFLOPs are the FLOPs of the seeded workloads, from the estimator.
func seededFLOPs(t *testing.T) (chat, code, rag *big.Int) {
	t.Helper()
	m, _ := estimator.Lookup("llama-3.1-8b")
	per := func(in, out, n int64) *big.Int {
		e, err := estimator.Compute(m.Architecture, estimator.Request{InputTokens: in, OutputTokens: out, Requests: 1})
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).Mul(e.Total, big.NewInt(n))
	}
	return per(150, 400, 1000), per(60000, 200, 100), per(100, 50, 25)
}

func TestPagesOnSeededData(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	seedDashboard(t, api)
	for _, p := range dashboardPages {
		getPage(t, api, p, 200)
	}
	chat, code, rag := seededFLOPs(t)
	all := new(big.Int).Add(chat, new(big.Int).Add(code, rag))
	tariff := decimal.RequireFromString("0.00001")
	flopsCost := func(n *big.Int) decimal.Decimal { return decimal.NewFromBigInt(n, 0).Mul(tariff).Shift(-12) }

	body := getPage(t, api, "/", 200)
	mustContain(t, "overview", body,
		"$6.45", "$18.30", "$0.0263", // the three request bills ($0.02625 has three significant digits)
		`<dd class="big" id="total-request"><span title="exactly $24.77625">$24.78</span></dd>`,
		`title="exactly $`+flopsCost(all).String()+`"`, // the FLOPs bill, exact on hover
		estimator.HumanFLOPs(all),
		`<a href="/workloads/support-chat?month=2026-10">support-chat</a>`,
		"64.5%", "at risk", // the budget: $6.45 of $10
		"whitespace bloat</strong> on", "rag-search",
		"mystery-model", // unpriced
		`class="prefill"`, `class="decode"`, "<svg", "<title id=\"flops-chart-t\">",
	)
	// Support chat is cheaper under FLOPs billing, the code assistant dearer.
	if pct := deltaPct(flopsCost(chat), "6.45"); !strings.Contains(body, pct) {
		t.Errorf("overview lacks support-chat's change %s", pct)
	}

	body = getPage(t, api, "/workloads/support-chat?month=2026-10", 200)
	mustContain(t, "workload", body, "Workload support-chat", "$6.45", "1,000", estimator.HumanFLOPs(chat),
		"$10.00", "64.5%", "at risk", // the budget
		"Latency, median (p50)", "p99 ", "10 records", // latency from the histogram
		"128 – 255", // the prompt-size bucket of 150-token prompts
		`id="bloat-chart-t"`, `id="prompt-chart-t"`, `id="cost-chart-t"`)
	body = getPage(t, api, "/workloads/rag-search", 200)
	mustContain(t, "rag-search", body, "10.0%", "250 of 2,500 input tokens", "whitespace bloat")

	body = getPage(t, api, "/compare", 200)
	mustContain(t, "compare", body, "$6.45", "$18.30", "Revenue-neutral price", "break-even")
	neutral := decimal.RequireFromString("24.77625").Shift(12).DivRound(decimal.NewFromBigInt(all, 0), 18)
	mustContain(t, "compare", body, `title="exactly $`+neutral.String()+`"`)

	body = getPage(t, api, "/alerts?state=open", 200)
	mustContain(t, "alerts", body, "rag-search", "Acknowledge", "Resolve", `name="state" value="open"`)
	body = getPage(t, api, "/models", 200)
	mustContain(t, "models", body, "list-price", "flops-tariff", "$0.00001", "(in force)")
}

// deltaPct is the change from a request bill to a FLOPs bill as the pages
// write it: one place, a sign, a typographic minus.
func deltaPct(flops decimal.Decimal, request string) string {
	r := decimal.RequireFromString(request)
	p := flops.Sub(r).Mul(decimal.NewFromInt(100)).DivRound(r, 4)
	return formatSignedPct(&p)
}
