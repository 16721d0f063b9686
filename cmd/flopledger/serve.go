package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/robfig/cron/v3"

	"github.com/flopledger/flopledger/alert"
	"github.com/flopledger/flopledger/auth"
	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/deliver"
	"github.com/flopledger/flopledger/demo"
	"github.com/flopledger/flopledger/notify"
	"github.com/flopledger/flopledger/quote"
	"github.com/flopledger/flopledger/report"
	"github.com/flopledger/flopledger/store"
	"github.com/flopledger/flopledger/usage"
	"github.com/flopledger/flopledger/web"
)

// serve runs the service until ctx is cancelled (SIGINT or SIGTERM), then
// stops HTTP (finishing in-flight requests), closes the pool and stops the
// embedded PostgreSQL, all within the shutdown timeout.
func serve(ctx context.Context, cfg Config, log *slog.Logger, stdout io.Writer) error {
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.close(log)
	if err := prepareSchema(ctx, cfg, db.store, log); err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		store.NewPoolCollector(db.store))
	models := catalog.New(db.store)
	tokens := bloat.NewCounter()
	go func() {
		// Load the default vocabulary now (tens of ms) rather than in the
		// first request that sends a prompt.
		if err := tokens.Load(bloat.O200kBase); err != nil {
			log.Error("loading the tokenizer", slog.Any("error", err))
		}
	}()
	chans, err := channels(cfg)
	if err != nil {
		return err
	}
	notifier := notify.New(chans, deliver.Policy{}, db.store, log.With(slog.String("component", "notify")))
	budgets := budget.New(db.store)
	maker := report.NewMaker(db.store, report.MakerOptions{Budgets: budgetSource(budgets), GroupTags: cfg.GroupTags,
		RequestPlan: cfg.RequestPlan, FLOPsPlan: cfg.FLOPsPlan, LinkBase: cfg.PublicURL})
	alerts, err := alert.New(db.store, alert.Config{RequestPlan: cfg.RequestPlan, FLOPsPlan: cfg.FLOPsPlan})
	if err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	alerter := alerting{Service: alerts, budgets: budgets, notifier: notifier, log: log.With(slog.String("component", "alert"))}
	usages := usage.NewService(db.store, models, tokens, usage.Options{GroupTags: cfg.GroupTags, Logger: log.With(slog.String("component", "usage"))})
	backfill := startBackfill(ctx, usages, log)
	if cfg.Demo {
		// Seed before serving, so that the first look shows every page
		// alive. Alerts are evaluated without delivery: the demo's history
		// must not mail anyone.
		silent := alerting{Service: alerts, budgets: budgets, notifier: notify.New(nil, deliver.Policy{}, db.store, log), log: log}
		start := time.Now()
		seeded, err := demo.Seed(ctx, demo.Deps{Plans: db.store, Models: models, Usage: usages, Budgets: budgets, Alerts: silent, Now: time.Now()}, log)
		if err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		if seeded {
			log.Info("demo data seeded", slog.Int64("took_ms", time.Since(start).Milliseconds()))
		}
	}
	if cfg.Demo && cfg.AdminKey == "" {
		// The demo keeps its admin key in the data dir and prints it at
		// every start, so that a newcomer can always sign in.
		k, err := demoKey(cfg.DataDir)
		if err != nil {
			return err
		}
		cfg.AdminKey = k
		fmt.Fprintf(stdout, "\nDemo mode: sign in to the dashboard, or call the API, with this admin key:\n\n    %s\n\n", k)
	}
	keys := auth.New(db.store, cfg.AdminKey, time.Now)
	if k, secret, err := keys.Bootstrap(ctx); err == nil {
		log.Warn("made the first admin API key; it is shown once", slog.String("key_id", k.ID))
		fmt.Fprintf(stdout, "\nNo API key existed, so an admin key was made. It is shown this once; keep it:\n\n    %s\n\n"+
			"Use it as \"Authorization: Bearer <key>\" and to sign in to the dashboard.\n\n", secret)
	} else if !errors.Is(err, auth.ErrBootstrapDisabled) {
		return fmt.Errorf("api keys: %w", err)
	}
	// The estimate API prices every estimate under every plan; plans written
	// by another instance show there within a second.
	plans := quote.NewPlanCache(db.store, time.Second, time.Now)
	handler := web.New(web.Options{
		Auth:               keys,
		Keys:               keys,
		Sessions:           keys,
		RateLimit:          cfg.RateLimit,
		RateBurst:          cfg.RateBurst,
		AnonymousEstimate:  cfg.AnonymousEstimate,
		MetricsToken:       cfg.MetricsToken,
		Quotes:             quote.New(models, tokens).WithPlans(plans, time.Now),
		Models:             models,
		Usage:              usages,
		Plans:              plans,
		Reports:            report.New(db.store, cfg.GroupTags),
		Importer:           fileImporter{usages},
		Budgets:            budgets,
		Maker:              maker,
		Archive:            db.store,
		Notifier:           notifier,
		Alerts:             alerter,
		Insights:           db.store,
		Unavailable:        store.IsUnavailable,
		LinkBase:           cfg.PublicURL,
		OnModelRegistered:  backfill.kick,
		DefaultRequestPlan: cfg.RequestPlan,
		DefaultFLOPsPlan:   cfg.FLOPsPlan,
		MaxBatchRecords:    cfg.MaxBatchRecords,
		RequestTimeout:     cfg.RequestTimeout,
		TrustedProxies:     cfg.TrustedProxies,
		MaxBatchBytes:      cfg.MaxBatchBytes,
		MaxImportBytes:     cfg.MaxImportBytes,
		Logger:             log.With(slog.String("component", "http")),
		Readiness:          db.store,
		Registry:           reg,
		Gatherer:           reg,
		Version:            version,
	})

	// Scheduled jobs. cron.Stop waits for a running job before shutdown
	// closes the pool under it.
	sched := cron.New(cron.WithLocation(time.UTC), cron.WithChain(cron.SkipIfStillRunning(cron.DiscardLogger)))
	if cfg.RetentionMonths > 0 {
		if _, err := sched.AddFunc(cfg.RetentionSchedule, retentionJob(ctx, db.store, cfg.RetentionMonths, time.Now, log)); err != nil {
			return fmt.Errorf("retention schedule: %w", err)
		}
	}
	if _, err := sched.AddFunc(cfg.AlertSchedule, alerter.job(ctx)); err != nil {
		return fmt.Errorf("alert schedule: %w", err)
	}
	var catchUp sync.WaitGroup
	if err := addReportJobs(ctx, sched, maker, notifier, cfg, &catchUp, log); err != nil {
		return err
	}
	sched.Start()
	defer func() {
		// Stop cron and wait for a running job, then let deliveries in
		// flight finish (or be logged as cut short) before the pool closes.
		<-sched.Stop().Done()
		catchUp.Wait()
		nctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		notifier.Close(nctx)
	}()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s (FLOPLEDGER_ADDR): %w", cfg.Addr, err)
	}
	srv := &http.Server{
		// A request that outlives the timeout has its context cancelled
		// (web.Options.RequestTimeout) and answers 503; a slow client that
		// never finishes its body is cut off by ReadTimeout.
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cfg.RequestTimeout,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("flopledger serving", slog.String("url", "http://"+ln.Addr().String()), slog.String("version", version))
	fmt.Fprintf(stdout, "flopledger is serving on http://%s (Ctrl-C to stop)\n", ln.Addr())

	var embeddedDied <-chan error
	if db.embedded != nil {
		embeddedDied = db.embedded.Wait()
	}
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case err := <-embeddedDied:
		log.Error("embedded PostgreSQL exited", slog.Any("error", err))
		return fmt.Errorf("embedded PostgreSQL exited unexpectedly: %v", err)
	case <-ctx.Done():
	}

	log.Info("shutting down", slog.String("timeout", cfg.ShutdownTimeout.String()))
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http shutdown: %w", err)
	}
	backfill.wait()
	return nil
}
