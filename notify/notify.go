// Package notify sends reports and alerts on the configured channels
// (e-mail, webhooks) in the background, with retries, and logs every attempt
// so that a failed delivery shows in the delivery log and never loses the
// report itself, which is stored before it is sent. A slow or dead channel
// delays nothing else: each delivery runs in its own goroutine.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/flopledger/flopledger/deliver"
	"github.com/flopledger/flopledger/report"
)

// Log records delivery attempts (the store). Exactly one of reportID and
// alertID is set.
type Log interface {
	RecordDelivery(ctx context.Context, reportID, alertID int64, d report.Delivery) error
}

// Ref says what a message is about, for the delivery log.
type Ref struct {
	ReportID int64
	AlertID  int64
}

// Notifier holds the channels and the deliveries in flight.
type Notifier struct {
	channels []deliver.Channel
	policy   deliver.Policy
	log      Log
	logger   *slog.Logger
	inflight sync.WaitGroup
	// base outlives the requests that start deliveries; Close cancels it.
	base   context.Context
	cancel context.CancelFunc
}

// New returns a Notifier over channels.
func New(channels []deliver.Channel, policy deliver.Policy, log Log, logger *slog.Logger) *Notifier {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	base, cancel := context.WithCancel(context.Background())
	return &Notifier{channels: channels, policy: policy, log: log, logger: logger, base: base, cancel: cancel}
}

// Channels lists the configured channels: name and kind.
func (n *Notifier) Channels() []ChannelInfo {
	out := make([]ChannelInfo, len(n.channels))
	for i, c := range n.channels {
		out[i] = ChannelInfo{Name: c.Name(), Kind: c.Kind()}
	}
	return out
}

// ChannelInfo describes a channel.
type ChannelInfo struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// Send delivers m on every channel whose name is in only (all when only is
// empty), each in the background; it returns at once. Every attempt is
// logged against ref.
func (n *Notifier) Send(ref Ref, m deliver.Message, only []string) {
	for _, ch := range n.channels {
		if len(only) > 0 && !slices.Contains(only, ch.Name()) {
			continue
		}
		n.inflight.Add(1)
		go func() {
			defer n.inflight.Done()
			err := deliver.Deliver(n.base, ch, m, n.policy, func(a deliver.Attempt) {
				d := report.Delivery{Channel: a.Channel, Kind: a.Kind, Try: a.Try, At: a.At, TookMS: a.Took.Milliseconds(),
					OK: a.Err == "", Final: a.Final, Error: a.Err}
				// The log write must outlive a shutdown in progress.
				ctx, cancel := context.WithTimeout(context.WithoutCancel(n.base), 10*time.Second)
				defer cancel()
				if err := n.log.RecordDelivery(ctx, ref.ReportID, ref.AlertID, d); err != nil {
					n.logger.Error("recording a delivery attempt", slog.Any("error", err))
				}
			}, nil)
			if err != nil {
				n.logger.Error("delivery failed", slog.String("channel", ch.Name()), slog.Int64("report_id", ref.ReportID),
					slog.Int64("alert_id", ref.AlertID), slog.Any("error", err))
			}
		}()
	}
}

// Test sends a short test message on the channel called name, once, and
// says whether it arrived.
func (n *Notifier) Test(ctx context.Context, name string) error {
	for _, ch := range n.channels {
		if ch.Name() == name {
			return deliver.Test(ctx, ch)
		}
	}
	return fmt.Errorf("%w: %q", ErrUnknownChannel, name)
}

// ErrUnknownChannel: no channel has that name.
var ErrUnknownChannel = errors.New("no such channel")

// Close waits for the deliveries in flight, up to ctx's deadline, then
// cancels those still retrying (their last attempt is logged as final).
func (n *Notifier) Close(ctx context.Context) {
	done := make(chan struct{})
	go func() { n.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		n.cancel()
		<-done
	}
	n.cancel()
}
