package web

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// rowOrder returns the workloads in the order their rows appear.
func rowOrder(body string, names ...string) []string {
	type pos struct {
		name string
		at   int
	}
	var ps []pos
	for _, n := range names {
		if i := strings.Index(body, `">`+n+`</a></th>`); i >= 0 {
			ps = append(ps, pos{n, i})
		}
	}
	for i := range ps { // a few rows: insertion sort
		for j := i; j > 0 && ps[j].at < ps[j-1].at; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

func TestPageSorting(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	seedDashboard(t, api)
	names := []string{"code-assistant", "rag-search", "support-chat"}
	for _, tc := range []struct {
		path string
		want string
	}{
		{"/", "code-assistant rag-search support-chat"},                           // by name
		{"/?sort=request_cost", "code-assistant support-chat rag-search"},         // a number sorts largest first
		{"/?sort=request_cost&dir=asc", "rag-search support-chat code-assistant"}, // $0.02625, $6.45, $18.30
		{"/?sort=workload&dir=desc", "support-chat rag-search code-assistant"},
		{"/?sort=budget", "support-chat code-assistant rag-search"}, // only support-chat has a budget
		{"/?sort=nonsense", "code-assistant rag-search support-chat"},
		{"/compare?sort=requests&dir=asc", "rag-search code-assistant support-chat"}, // 25, 100, 1,000
		{"/compare?sort=delta_pct", "code-assistant rag-search support-chat"},
	} {
		body := getPage(t, api, tc.path, 200)
		if got := strings.Join(rowOrder(body, names...), " "); got != tc.want {
			t.Errorf("%s: rows %s, want %s", tc.path, got, tc.want)
		}
	}
	// The header of the sorted column says so and links to the other way.
	body := getPage(t, api, "/?sort=request_cost&dir=asc", 200)
	mustContain(t, "sorted header", body, `<th scope="col" aria-sort="ascending" class="num"><a href="/?dir=desc&amp;sort=request_cost#workloads">Request plan`)
	// A sorted month keeps its order in the month links.
	mustContain(t, "month links", body, `href="/?dir=asc&amp;month=2026-09&amp;sort=request_cost"`)
}

// TestPageCompareWhatIf: a what-if price per TFLOP replaces the FLOPs
// column with total FLOPs × price / 10^12, exactly, and the difference
// follows; a price that is not a plain decimal is a 422 with the problem.
func TestPageCompareWhatIf(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	seedDashboard(t, api)
	chat, code, _ := seededFLOPs(t)
	price := decimal.RequireFromString("0.00003")
	chatCost := decimal.NewFromBigInt(chat, 0).Mul(price).Shift(-12)
	codeCost := decimal.NewFromBigInt(code, 0).Mul(price).Shift(-12)

	body := getPage(t, api, "/compare?what_if=0.00003", 200)
	mustContain(t, "what-if", body,
		`<td class="num flops-cost"><span title="exactly $`+chatCost.String()+`">`+formatMoney(chatCost)+`</span></td>`,
		`<td class="num flops-cost"><span title="exactly $`+codeCost.String()+`">`+formatMoney(codeCost)+`</span></td>`,
		`title="exactly $`+chatCost.Sub(decimal.RequireFromString("6.45")).String()+`"`, // the difference
		deltaPct(chatCost, "6.45"),
		"FLOPs at what-if", `value="0.00003"`)
	// Without the what-if, the FLOPs column is the plan's.
	planChat := decimal.NewFromBigInt(chat, 0).Mul(decimal.RequireFromString("0.00001")).Shift(-12)
	mustContain(t, "plan", getPage(t, api, "/compare", 200),
		`<td class="num flops-cost"><span title="exactly $`+planChat.String()+`">`+formatMoney(planChat)+`</span></td>`)

	for _, bad := range []string{"abc", "-0.1", "1e-5", "0.1.2"} {
		w := do(api, "GET", "/compare?what_if="+bad, "")
		checkHTML(t, w, 422, "what_if="+bad)
		mustContain(t, "what_if="+bad, w.Body.String(), `id="what_if-error"`, "must be a price in dollars per TFLOP")
	}
	w := do(api, "GET", "/compare?request_plan=nope", "")
	checkHTML(t, w, 422, "unknown plan")
	mustContain(t, "unknown plan", w.Body.String(), `request_plan: no plan is called &#34;nope&#34;`)
}

func TestPageWorkloadNotFound(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	seedDashboard(t, api)
	w := do(api, "GET", "/workloads/nobody-here", "")
	checkHTML(t, w, 404, "unknown workload")
	mustContain(t, "404", w.Body.String(), "Error 404", "No workload called “nobody-here” has usage, a budget or alerts in October 2026.")
	// A workload name is one escaped path segment, slashes included.
	checkHTML(t, do(api, "GET", "/workloads/team%2Fa", ""), 404, "escaped name")
	w = do(api, "GET", "/?month=2026-13", "")
	checkHTML(t, w, 422, "bad month")
	mustContain(t, "bad month", w.Body.String(), `id="month-error"`, "is not a month YYYY-MM")
}
