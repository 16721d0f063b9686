package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/deliver"
	"github.com/flopledger/flopledger/notify"
)

// alerting binds the alert evaluation to the budgets it reads and the
// channels it delivers to: what the hourly job and POST /v1/alerts/evaluate
// both run.
type alerting struct {
	*alert.Service
	budgets  *budget.Service
	notifier *notify.Notifier
	log      *slog.Logger
}

// Evaluate opens the alerts due at now and sends each opened one.
func (a alerting) Evaluate(ctx context.Context, now time.Time) ([]alert.Alert, error) {
	statuses, err := a.budgets.Statuses(ctx, now)
	if err != nil {
		return nil, err
	}
	var in []alert.BudgetStatus
	for _, s := range statuses {
		if s.Error != "" {
			continue
		}
		in = append(in, alert.BudgetStatus{Workload: s.Workload, Kind: s.Kind, Amount: s.Amount, Spent: s.Spent, Forecast: s.Forecast, Unit: s.Unit})
	}
	opened, err := a.Service.Evaluate(ctx, now, in)
	if err != nil {
		return nil, err
	}
	for _, al := range opened {
		a.notifier.Send(notify.Ref{AlertID: al.ID}, alertMessage(al), nil)
	}
	return opened, nil
}

// job is the hourly evaluation (its cron spec is FLOPLEDGER_ALERT_SCHEDULE).
func (a alerting) job(ctx context.Context) func() {
	return func() {
		opened, err := a.Evaluate(ctx, time.Now())
		if err != nil {
			a.log.Error("alert evaluation failed", slog.Any("error", err))
			return
		}
		if len(opened) > 0 {
			a.log.Info("alerts opened", slog.Int("count", len(opened)))
		}
	}
}

func alertMessage(a alert.Alert) deliver.Message {
	return deliver.Message{
		Subject: a.Subject(),
		Text:    a.Text(),
		Webhook: map[string]any{"event": "alert", "alert": a, "id": fmt.Sprint(a.ID)},
	}
}
