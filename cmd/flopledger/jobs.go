package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/flopledger/flopledger/auth"
	"github.com/flopledger/flopledger/importer"
	"github.com/flopledger/flopledger/store"
	"github.com/flopledger/flopledger/usage"
)

// fileImporter binds importer.Import to the usage service for the API.
type fileImporter struct{ usage *usage.Service }

func (f fileImporter) Import(ctx context.Context, r io.Reader, format importer.Format, o importer.Options) (importer.Summary, error) {
	return importer.Import(ctx, r, format, o, f.usage, nil)
}

// backfiller prices the records of newly known models: at start, when a
// model is registered (kick), and every few minutes in case a registration
// happened on another instance.
type backfiller struct {
	kicks chan struct{}
	done  sync.WaitGroup
}

func startBackfill(ctx context.Context, u *usage.Service, log *slog.Logger) *backfiller {
	b := &backfiller{kicks: make(chan struct{}, 1)}
	b.kick("")
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		tick := time.NewTicker(5 * time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-b.kicks:
			case <-tick.C:
			}
			n, err := u.Backfill(ctx)
			if err != nil && ctx.Err() == nil {
				log.Error("backfill failed; it runs again in a few minutes", slog.Any("error", err))
			} else if n > 0 {
				log.Info("backfill priced records", slog.Int("records", n))
			}
		}
	}()
	return b
}

// kick asks for a backfill soon; kicks while one is pending merge.
func (b *backfiller) kick(string) {
	select {
	case b.kicks <- struct{}{}:
	default:
	}
}

// wait returns when the worker has stopped (after ctx is cancelled).
func (b *backfiller) wait() { b.done.Wait() }

// retention drops raw partitions older than the configured months; the
// cron spec lives in the config (FLOPLEDGER_RETENTION_SCHEDULE).
func retentionJob(ctx context.Context, st *store.Store, months int, now func() time.Time, log *slog.Logger) func() {
	return func() {
		n := now().UTC()
		cutoff := time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -months, 0)
		dropped, err := st.DropRawBefore(ctx, cutoff)
		if err != nil {
			log.Error("retention failed", slog.Any("error", err))
			return
		}
		if len(dropped) > 0 {
			log.Info("retention dropped raw partitions", slog.Any("partitions", dropped), slog.Time("before", cutoff))
		}
	}
}

// demoKey reads the demo's admin key from the data dir, making it on the
// first start (mode 0600: it is a secret).
func demoKey(dataDir string) (string, error) {
	path := filepath.Join(dataDir, "demo-admin-key")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 16 {
		return strings.TrimSpace(string(b)), nil
	}
	k := auth.NewSecret()
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(k+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("demo key: %w", err)
	}
	return k, nil
}
