package report

import (
	"fmt"
	"strings"
)

// Summary is the report in at most six plain-text lines, for a webhook's
// "text" (Slack shows it as the message) and the e-mail's plain-text part:
// the title, both bills and the delta, the revenue-neutral price, then the
// budgets exceeded or at risk, the biggest movers and the worst bloat, each
// line only when there is something to say. It is plain text: a channel
// that reads markup (Slack's mrkdwn reads <, > and &) escapes it.
func (m Monthly) Summary() string {
	t := m.Total
	lines := []string{m.Title + " (by " + strings.ToLower(keyHeader(m.GroupBy)) + ")"}
	totals := fmt.Sprintf("Request plan %s: %s · FLOPs plan %s: %s · FLOPs billing %s", m.RequestPlan, money(t.RequestCost),
		m.FLOPsPlan, money(t.FLOPsCost), signedMoney(t.Delta))
	if t.DeltaPct != nil {
		totals += " (" + signedPct(t.DeltaPct) + ")"
	}
	var unpriced int64
	for _, u := range m.Unpriced {
		unpriced += u.Records
	}
	if unpriced > 0 {
		totals += fmt.Sprintf(" · %s records could not be priced and are left out", count(unpriced))
	}
	lines = append(lines, totals)
	if p := m.Findings.RevenueNeutralPerTFLOP; p != nil {
		lines = append(lines, "Revenue-neutral FLOPs price: "+perTFLOP(p)+" per TFLOP")
	}
	f := m.Findings
	var budgets []string
	if len(f.BudgetsExceeded) > 0 {
		budgets = append(budgets, "exceeded: "+budgetKeys(f.BudgetsExceeded))
	}
	if len(f.BudgetsAtRisk) > 0 {
		budgets = append(budgets, "at risk: "+budgetKeys(f.BudgetsAtRisk))
	}
	if len(budgets) > 0 {
		lines = append(lines, "Budgets "+strings.Join(budgets, "; "))
	}
	var movers []string
	if len(f.Losers) > 0 {
		movers = append(movers, "dearer: "+moverText(f.Losers[0]))
	}
	if len(f.Gainers) > 0 {
		movers = append(movers, "cheaper: "+moverText(f.Gainers[0]))
	}
	if len(movers) > 0 {
		lines = append(lines, "Under FLOPs billing, "+strings.Join(movers, "; "))
	}
	if len(f.BloatOffenders) > 0 {
		b := f.BloatOffenders[0]
		lines = append(lines, fmt.Sprintf("Prompt bloat: %s of %s's prompt tokens are redundant whitespace (%s under the request plan, %s under the FLOPs plan)",
			pct(&b.BloatPct), b.Key, money(b.BloatRequestCost), money(b.BloatFLOPsCost)))
	}
	return strings.Join(lines, "\n")
}

func budgetKeys(bs []BudgetFinding) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("%s (%s)", b.Key, pct(b.UsedPct))
	}
	return strings.Join(parts, ", ")
}

func moverText(m Mover) string {
	return fmt.Sprintf("%s %s (%s)", m.Key, signedMoney(m.Delta), signedPct(m.DeltaPct))
}
