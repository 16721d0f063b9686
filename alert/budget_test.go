package alert

import (
	"slices"
	"testing"
	"time"
)

func TestBudgetAlerts(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 20, 10, 0, 0, 0, time.UTC)
	october := Key{WindowStart: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}
	money := func(amount, spent, forecast string) BudgetStatus {
		return BudgetStatus{Workload: "support-chat", Kind: BudgetMoney, Amount: dec(amount), Spent: dec(spent), Forecast: dec(forecast), Unit: "USD"}
	}
	cases := []struct {
		name        string
		budgets     []BudgetStatus
		wantFired   []Kind
		wantCleared []Kind
	}{
		{"forecast exactly 100% is at risk", []BudgetStatus{money("1000", "600", "1000")}, []Kind{BudgetAtRisk}, []Kind{BudgetExceeded}},
		{"forecast a cent short is not", []BudgetStatus{money("1000", "600", "999.99")}, nil, []Kind{BudgetAtRisk, BudgetExceeded}},
		{"spent exactly 100% is exceeded, and supersedes at risk", []BudgetStatus{money("1000", "1000", "1500")}, []Kind{BudgetExceeded}, []Kind{BudgetAtRisk}},
		{"spent a cent short is only at risk", []BudgetStatus{money("1000", "999.99", "1500")}, []Kind{BudgetAtRisk}, []Kind{BudgetExceeded}},
		{"a budget of zero fires nothing", []BudgetStatus{money("0", "5", "10")}, nil, []Kind{BudgetAtRisk, BudgetExceeded}},
		{"the budget furthest over speaks for the workload", []BudgetStatus{
			money("1000", "1000", "1000"),
			{Workload: "support-chat", Kind: BudgetTFLOPs, Amount: dec("100"), Spent: dec("150"), Forecast: dec("200"), Unit: "TFLOP"},
		}, []Kind{BudgetExceeded}, []Kind{BudgetAtRisk}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fired, cleared := budgetAlerts(now, tc.budgets, Config{})
			var gotFired, gotCleared []Kind
			for _, a := range fired {
				gotFired = append(gotFired, a.Kind)
			}
			for _, k := range cleared {
				if k.Workload != "support-chat" || !k.WindowStart.Equal(october.WindowStart) {
					t.Errorf("cleared %+v: wrong workload or window", k)
				}
				gotCleared = append(gotCleared, k.Kind)
			}
			if !slices.Equal(gotFired, tc.wantFired) || !slices.Equal(gotCleared, tc.wantCleared) {
				t.Errorf("fired %v, cleared %v; want %v, %v", gotFired, gotCleared, tc.wantFired, tc.wantCleared)
			}
		})
	}
}

func TestBudgetAlertText(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 20, 10, 0, 0, 0, time.UTC)
	fired, _ := budgetAlerts(now, []BudgetStatus{
		{Workload: "code-assist", Kind: BudgetTFLOPs, Amount: dec("1000"), Spent: dec("1100.5"), Forecast: dec("1700"), Unit: "TFLOP"},
		{Workload: "support-chat", Kind: BudgetMoney, Amount: dec("1000"), Spent: dec("600"), Forecast: dec("1250"), Unit: "USD"},
	}, Config{})
	if len(fired) != 2 {
		t.Fatalf("fired %d alerts, want 2", len(fired))
	}
	ex, risk := fired[0], fired[1]
	if want := "Workload code-assist has spent 1,100.50 TFLOP of its 1,000.00 TFLOP budget for 2026-10 (110.05%; the threshold is 100.00%)."; ex.Sentence != want {
		t.Errorf("sentence:\n got %s\nwant %s", ex.Sentence, want)
	}
	wantEvidence := `{"window":{"start":"2026-10-01T00:00:00Z","end":"2026-11-01T00:00:00Z"},"threshold":"1","observed":"1.1005",` +
		`"budget":{"kind":"tflops","unit":"TFLOP","amount":"1000","spent":"1100.5","forecast":"1700","overrun":"100.5"}}`
	if got := mustJSON(t, ex.Evidence); got != wantEvidence {
		t.Errorf("evidence:\n got %s\nwant %s", got, wantEvidence)
	}
	if ex.Cost.FLOPs != "100500000000000" {
		t.Errorf("cost FLOPs = %s, want 100.5 TFLOP", ex.Cost.FLOPs)
	}
	if want := "Workload support-chat is forecast to spend 1,250.00 USD against its 1,000.00 USD budget for 2026-10 (125.00%; the threshold is 100.00%)."; risk.Sentence != want {
		t.Errorf("sentence:\n got %s\nwant %s", risk.Sentence, want)
	}
	if risk.Cost.FLOPs != "" || risk.Evidence.Budget.Overrun.String() != "250" {
		t.Errorf("money budget: cost FLOPs %q, overrun %s", risk.Cost.FLOPs, risk.Evidence.Budget.Overrun)
	}
}

func TestBudgetOfAnEndedMonth(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 30, 0, 0, time.UTC)
	fired, cleared := budgetAlerts(now, []BudgetStatus{{Workload: "w", Kind: BudgetMoney, Amount: dec("1"), Spent: dec("2"), Forecast: dec("2"),
		Month: MonthWindow(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC))}}, Config{})
	if len(fired) != 0 || len(cleared) != 0 {
		t.Errorf("fired %+v, cleared %+v; want nothing", fired, cleared)
	}
}
