package deliver

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math/rand/v2"
	"time"
)

// Attempt is one try at a delivery, as Deliver reports it to its record
// function: one row of a delivery log.
type Attempt struct {
	Channel string // Channel.Name
	Kind    string // Channel.Kind
	ID      string // Message.ID, the same for every try of one delivery
	Try     int    // 1-based
	At      time.Time
	Took    time.Duration
	Err     string        // "" on success
	Wait    time.Duration // before the next try; zero on the final one
	// Final marks the last try of the delivery: it succeeded, failed
	// permanently, was the last allowed, or was not sent because the
	// context ended. Every Deliver call records exactly one Final attempt,
	// and records it last.
	Final bool
}

// Policy says how often and how patiently Deliver retries. Zero fields take
// the defaults: 5 tries, a first wait of 2s, at most 2m between tries.
type Policy struct {
	Tries int
	// First is the wait after the first failure; each later wait doubles,
	// up to Max. A wait is drawn at random from [w/2, w] ("equal jitter"),
	// so that channels failing together do not retry in lockstep.
	First, Max time.Duration
	// Now stamps Attempt.At and Took; nil means time.Now.
	Now func() time.Time
}

func (p Policy) withDefaults() Policy {
	if p.Tries <= 0 {
		p.Tries = 5
	}
	if p.First <= 0 {
		p.First = 2 * time.Second
	}
	if p.Max <= 0 {
		p.Max = 2 * time.Minute
	}
	p.Max = max(p.Max, p.First)
	if p.Now == nil {
		p.Now = time.Now
	}
	return p
}

// wait returns how long to wait after failed try number try (1-based).
func (p Policy) wait(try int, err error) time.Duration {
	var f *Failure
	if errors.As(err, &f) && f.RetryAfter > 0 {
		return min(f.RetryAfter, p.Max)
	}
	w := p.First
	for i := 1; i < try && w < p.Max; i++ {
		w *= 2
	}
	w = min(w, p.Max)
	return w/2 + rand.N(w/2+1)
}

// Deliver sends m on ch, retrying transient failures with backoff (see
// Policy and the package doc for what is permanent), and calls record for
// every try, including a final "not sent" one when ctx ends first. It
// returns nil once a try succeeds, and otherwise an error that wraps the
// last Send error (and ctx's error if that is what stopped it).
//
// An empty m.ID is filled with NewID so that every try carries the same
// ID. record may be nil. sleep waits between tries and must return early
// with ctx's error when ctx ends; nil means a real timer (tests pass one
// that records the waits).
func Deliver(ctx context.Context, ch Channel, m Message, p Policy, record func(Attempt), sleep func(ctx context.Context, d time.Duration) error) error {
	p = p.withDefaults()
	if record == nil {
		record = func(Attempt) {}
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	if m.ID == "" {
		m.ID = NewID()
	}
	what := fmt.Sprintf("deliver: %s %q", ch.Kind(), ch.Name())
	var last error
	for try := 1; ; try++ {
		a := Attempt{Channel: ch.Name(), Kind: ch.Kind(), ID: m.ID, Try: try, At: p.Now()}
		if err := ctx.Err(); err != nil {
			a.Err, a.Final = "not sent: "+err.Error(), true
			record(a)
			if last == nil {
				return fmt.Errorf("%s: not sent: %w", what, err)
			}
			return fmt.Errorf("%s: stopped after %d tries: %w; last error: %w", what, try-1, err, last)
		}
		err := ch.Send(ctx, m)
		a.Took = p.Now().Sub(a.At)
		if err == nil {
			a.Final = true
			record(a)
			return nil
		}
		last = err
		a.Err = err.Error()
		switch {
		case IsPermanent(err):
			a.Final = true
			record(a)
			return fmt.Errorf("%s: try %d failed permanently: %w", what, try, err)
		case ctx.Err() != nil:
			a.Final = true
			record(a)
			return fmt.Errorf("%s: stopped after %d tries: %w; last error: %w", what, try, ctx.Err(), err)
		case try >= p.Tries:
			a.Final = true
			record(a)
			return fmt.Errorf("%s: gave up after %d tries: %w", what, try, err)
		}
		a.Wait = p.wait(try, err)
		record(a)
		if err := sleep(ctx, a.Wait); err != nil && ctx.Err() == nil {
			// A sleep that fails on its own would otherwise spin through
			// the tries without waiting.
			record(Attempt{Channel: a.Channel, Kind: a.Kind, ID: m.ID, Try: try + 1, At: p.Now(),
				Err: "not sent: waiting to retry: " + err.Error(), Final: true})
			return fmt.Errorf("%s: waiting to retry: %w; last error: %w", what, err, last)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Test sends one short test message on ch, without retrying, so that a
// wrong SMTP setting or webhook URL shows itself on the day it is
// configured. It returns Send's error.
func Test(ctx context.Context, ch Channel) error {
	text := fmt.Sprintf("flopledger test message: the %s channel %q works. No action is needed.", ch.Kind(), ch.Name())
	err := ch.Send(ctx, Message{
		ID:      NewID(),
		Subject: "flopledger test message",
		Text:    text,
		HTML:    "<!doctype html><html><body><p>" + html.EscapeString(text) + "</p></body></html>",
	})
	if err != nil {
		return fmt.Errorf("deliver: test of %s %q: %w", ch.Kind(), ch.Name(), err)
	}
	return nil
}
