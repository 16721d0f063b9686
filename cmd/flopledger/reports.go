package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/deliver"
	"github.com/flopledger/flopledger/notify"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/web"
)

// channels builds the delivery channels the configuration names: "email"
// when an SMTP host is set, "webhook" when a URL is set.
func channels(cfg Config) ([]deliver.Channel, error) {
	var out []deliver.Channel
	if cfg.SMTP.Host != "" {
		smtp := cfg.SMTP
		smtp.Timeout = 30 * time.Second
		ch, err := deliver.NewEmail("email", smtp)
		if err != nil {
			return nil, fmt.Errorf("FLOPLEDGER_SMTP_*: %w", err)
		}
		out = append(out, ch)
	}
	if cfg.WebhookURL != "" {
		ch, err := deliver.NewWebhook("webhook", deliver.WebhookConfig{URL: cfg.WebhookURL, Secret: cfg.WebhookSecret, Timeout: 15 * time.Second})
		if err != nil {
			return nil, fmt.Errorf("FLOPLEDGER_WEBHOOK_*: %w", err)
		}
		out = append(out, ch)
	}
	for _, c := range cfg.Channels {
		var ch deliver.Channel
		var err error
		switch c.Kind {
		case "email":
			smtp := cfg.SMTP
			smtp.To, smtp.Timeout = c.To, 30*time.Second
			ch, err = deliver.NewEmail(c.Name, smtp)
		default:
			ch, err = deliver.NewWebhook(c.Name, deliver.WebhookConfig{URL: c.URL, Secret: c.Secret, Timeout: 15 * time.Second})
		}
		if err != nil {
			return nil, fmt.Errorf("FLOPLEDGER_CHANNELS %q: %w", c.Name, err)
		}
		out = append(out, ch)
	}
	return out, nil
}

// budgetSource adapts the budget service to what reports read.
func budgetSource(b *budget.Service) report.BudgetSource {
	return func(ctx context.Context, month billing.Date, now time.Time) (map[string]report.BudgetStatus, error) {
		list, err := b.StatusesFor(ctx, budget.Month{Start: month}, now)
		if err != nil {
			return nil, err
		}
		out := make(map[string]report.BudgetStatus, len(list))
		for _, s := range list {
			used := s.UsedPct
			out[s.Workload] = report.BudgetStatus{Kind: s.Kind, Plan: s.Plan, Amount: s.Amount, Spent: s.Spent,
				Forecast: s.Forecast, UsedPct: &used, State: s.State}
		}
		return out, nil
	}
}

// schedules are the monthly report and the configured extra ones.
func schedules(cfg Config) []report.Schedule {
	out := []report.Schedule{{Name: "monthly", Spec: cfg.ReportSchedule, GroupBy: "workload", Location: cfg.ReportTZ}}
	for _, s := range cfg.Schedules {
		s.Location = cfg.ReportTZ
		if s.GroupBy == "" {
			s.GroupBy = "workload"
		}
		out = append(out, s)
	}
	return out
}

// instanceID names this process in run claims.
func instanceID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}

// reportJob makes a schedule's report (exactly once across instances) and
// sends it. It is what cron calls, and what runs at start to catch up.
func reportJob(ctx context.Context, m *report.Maker, n *notify.Notifier, s report.Schedule, linkBase string, log *slog.Logger) func() {
	id := instanceID()
	return func() {
		st, _, ran, err := m.RunScheduled(ctx, s, time.Now(), id)
		switch {
		case err != nil:
			log.Error("scheduled report failed", slog.String("schedule", s.Name), slog.Any("error", err))
		case ran:
			log.Info("scheduled report made", slog.String("schedule", s.Name), slog.Int64("report_id", st.ID))
			n.Send(notify.Ref{ReportID: st.ID}, web.ReportMessage(st, linkBase), s.Channels)
		}
	}
}

// addReportJobs schedules every report and starts a catch-up of each in
// the background (wait on catchUp before closing the pool).
func addReportJobs(ctx context.Context, sched *cron.Cron, m *report.Maker, n *notify.Notifier, cfg Config, catchUp *sync.WaitGroup, log *slog.Logger) error {
	for _, s := range schedules(cfg) {
		job := reportJob(ctx, m, n, s, cfg.PublicURL, log)
		spec := "CRON_TZ=" + s.Location.String() + " " + s.Spec
		if _, err := sched.AddFunc(spec, job); err != nil {
			return fmt.Errorf("schedule %q: %w", s.Name, err)
		}
		// Catch up a run missed while the service was down; a run already
		// made (here or by another instance) is a no-op through its claim.
		catchUp.Go(job)
	}
	return nil
}
