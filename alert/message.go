package alert

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// Subject is a one-line title for an e-mail or a chat message:
// "flopledger whitespace_bloat: support-chat, 2026-10-05".
func (a Alert) Subject() string {
	return fmt.Sprintf("flopledger %s: %s, %s", a.Kind, a.Workload, Window{Start: a.WindowStart, End: a.WindowEnd}.label())
}

// Text is the plain-text body the caller delivers (the e-mail's text part,
// the webhook's "text"; the Alert itself marshals to the webhook's data):
// what happened, what it costs, the fix. Money is shown rounded half away
// from zero to 4 places (alerts are often about fractions of a cent a
// day); the exact amounts are in Cost.
func (a Alert) Text() string {
	var b strings.Builder
	b.WriteString(a.Sentence)
	b.WriteString("\n\n")
	var costs []string
	if a.Cost.FLOPs != "" {
		costs = append(costs, billing.Thousands(a.Cost.FLOPs.String())+" FLOPs")
	}
	show := func(d *decimal.Decimal, kind, plan string) {
		if d != nil {
			costs = append(costs, fmt.Sprintf("$%s under %s plan %q", fmtDec(*d, 4), kind, plan))
		}
	}
	show(a.Cost.RequestCost, "request", a.Cost.RequestPlan)
	show(a.Cost.FLOPsCost, "FLOPs", a.Cost.FLOPsPlan)
	if len(costs) > 0 {
		b.WriteString("Cost: " + strings.Join(costs, "; ") + ".")
		if len(a.Cost.Missing) > 0 {
			b.WriteString(" Left out: " + strings.Join(a.Cost.Missing, "; ") + ".")
		}
		b.WriteString("\n\n")
	}
	b.WriteString("Fix: " + a.Fix + "\n\n")
	fmt.Fprintf(&b, "Alert %d, %s since %s.", a.ID, a.State, a.OpenedAt.UTC().Format(time.RFC3339))
	return b.String()
}
