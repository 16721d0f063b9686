package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestBudgets(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01",
		"prices": {"default": {"input_per_mtok": "3", "output_per_mtok": "15"}}}`), 201, "plan")
	var nd strings.Builder
	for i := range 10 {
		fmt.Fprintf(&nd, `{"id": "s%d", "occurred_at": "2026-10-05T10:00:00Z", "workload": "support-chat", "model": "llama-3.1-8b", "input_tokens": 150, "output_tokens": 400}`+"\n", i)
	}
	// September usage must not count towards October.
	nd.WriteString(`{"id": "old", "occurred_at": "2026-09-30T23:59:59Z", "workload": "support-chat", "model": "llama-3.1-8b", "input_tokens": 150, "output_tokens": 400}` + "\n")
	mustStatus(t, do(api, "POST", "/v1/usage", nd.String(), "Content-Type", "application/x-ndjson"), 200, "usage")

	// A default money budget, then a bigger one for October only: the month's own wins.
	mustStatus(t, do(api, "PUT", "/v1/budgets/support-chat", `{"kind": "money", "plan": "list-price", "amount": "0.05"}`), 200, "default budget")
	w := do(api, "PUT", "/v1/budgets/support-chat", `{"month": "2026-10", "kind": "money", "plan": "list-price", "amount": "0.1"}`)
	var st struct {
		Amount, Spent, Forecast decimal.Decimal
		UsedPct                 decimal.Decimal `json:"used_pct"`
		State, Unit             string
	}
	// Spent: 10·(150·3 + 400·15)/10^6 = 0.0645 of 0.1. 15 of October's 31
	// days have passed: the forecast is 0.0645 · 31/15 = 0.1333.
	if err := json.Unmarshal(w.Body.Bytes(), &st); w.Code != 200 || err != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	forecast := decimal.RequireFromString("0.1333")
	if !st.Spent.Equal(decimal.RequireFromString("0.0645")) || !st.UsedPct.Equal(decimal.RequireFromString("64.5")) ||
		!st.Forecast.Equal(forecast) || st.State != "at_risk" || st.Unit != "USD" {
		t.Fatalf("status %+v, want spent 0.0645, 64.5%% used, forecast %s, at_risk", st, forecast)
	}
	// September had only the default budget, and its one record exceeds nothing: 0.00645 of 0.05.
	w = do(api, "GET", "/v1/budgets/support-chat?month=2026-09", "")
	_ = json.Unmarshal(w.Body.Bytes(), &st)
	if w.Code != 200 || !st.Amount.Equal(decimal.RequireFromString("0.05")) || !st.Spent.Equal(decimal.RequireFromString("0.00645")) || st.State != "ok" {
		t.Fatalf("September: %d %s", w.Code, w.Body)
	}

	// A TFLOPs budget smaller than what was spent is exceeded.
	mustStatus(t, do(api, "PUT", "/v1/budgets/support-chat", `{"month": "2026-10", "kind": "tflops", "amount": "1"}`), 200, "tflops budget")
	w = do(api, "GET", "/v1/budgets", "")
	var list struct {
		Budgets []struct {
			Workload, State, Unit string
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || len(list.Budgets) != 1 || list.Budgets[0].State != "exceeded" || list.Budgets[0].Unit != "TFLOPs" {
		t.Fatalf("list: %s", w.Body)
	}

	for body, field := range map[string]string{
		`{"kind": "money", "amount": "1"}`:                      "plan",
		`{"kind": "money", "plan": "nope", "amount": "1"}`:      "plan",
		`{"kind": "tflops", "amount": "-1"}`:                    "amount",
		`{"kind": "tflops", "amount": "lots"}`:                  "amount",
		`{"kind": "euros", "amount": "1"}`:                      "kind",
		`{"kind": "tflops", "amount": "1", "month": "2026-13"}`: "month",
	} {
		if w := do(api, "PUT", "/v1/budgets/x", body); w.Code != 422 || !detailsName(errorBody(t, w).Details, field) {
			t.Errorf("%s: %d %s, want 422 naming %s", body, w.Code, w.Body, field)
		}
	}
	mustStatus(t, do(api, "DELETE", "/v1/budgets/support-chat?month=2026-10", ""), 204, "delete October")
	mustStatus(t, do(api, "DELETE", "/v1/budgets/support-chat?month=2026-10", ""), 404, "delete again")
	w = do(api, "GET", "/v1/budgets/support-chat", "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"amount":"0.05"`) {
		t.Fatalf("the default applies again: %d %s", w.Code, w.Body)
	}
}
