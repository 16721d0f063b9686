package deliver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// sleeps is an injected sleep that records the waits instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func TestWebhookRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	rv := (&receiver{t: t, script: []response{{status: 500}, {status: 502, body: "bad gateway"}, {status: 200, body: "ok"}}}).start()
	var s sleeps
	var attempts []Attempt
	m := alertMessage()
	err := Deliver(context.Background(), newHook(t, rv.url, nil), m, Policy{Tries: 5, First: time.Second, Max: 3 * time.Second},
		func(a Attempt) { attempts = append(attempts, a) }, s.sleep)
	if err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	if len(attempts) != 3 {
		t.Fatalf("recorded %d attempts, want 3: %+v", len(attempts), attempts)
	}
	for i, a := range attempts {
		last := i == 2
		if a.Try != i+1 || a.Final != last || (a.Err == "") != last || a.Channel != "ops-slack" || a.Kind != KindWebhook {
			t.Errorf("attempt %d = %+v", i+1, a)
		}
	}
	if !strings.Contains(attempts[0].Err, "HTTP 500") || !strings.Contains(attempts[1].Err, "502 Bad Gateway: bad gateway") {
		t.Errorf("errors %q, %q do not name the statuses", attempts[0].Err, attempts[1].Err)
	}
	// Exponential with equal jitter: try 1 waits in [0.5s, 1s], try 2 in [1s, 2s].
	if len(s.d) != 2 || s.d[0] < 500*time.Millisecond || s.d[0] > time.Second || s.d[1] < time.Second || s.d[1] > 2*time.Second {
		t.Errorf("waits = %v, want [0.5s..1s, 1s..2s]", s.d)
	}
	if attempts[0].Wait != s.d[0] || attempts[1].Wait != s.d[1] || attempts[2].Wait != 0 {
		t.Errorf("Attempt.Wait = %v, %v, %v; slept %v", attempts[0].Wait, attempts[1].Wait, attempts[2].Wait, s.d)
	}
	reqs := rv.requests()
	if len(reqs) != 3 {
		t.Fatalf("receiver got %d requests, want 3", len(reqs))
	}
	id := reqs[0].header.Get(HeaderDelivery)
	for _, r := range reqs {
		if r.header.Get(HeaderDelivery) != id || string(r.body) != string(reqs[0].body) {
			t.Errorf("retries differ: delivery %q body %s, first %q %s", r.header.Get(HeaderDelivery), r.body, id, reqs[0].body)
		}
	}
	if id != attempts[0].ID {
		t.Errorf("delivery header %q, Attempt.ID %q", id, attempts[0].ID)
	}
	want := `{"kind":"budget","percent":92,"text":"support-chat used 92% of its October FLOPs budget","workload":"support-chat"}`
	if string(reqs[0].body) != want {
		t.Errorf("body = %s, want %s", reqs[0].body, want)
	}
}

func TestDeliverGivesUpWithBoundedWaits(t *testing.T) {
	t.Parallel()
	rv := (&receiver{t: t, script: []response{{status: 503}}}).start()
	var s sleeps
	var attempts []Attempt
	err := Deliver(context.Background(), newHook(t, rv.url, nil), alertMessage(), Policy{Tries: 6, First: time.Second, Max: 3 * time.Second},
		func(a Attempt) { attempts = append(attempts, a) }, s.sleep)
	if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "gave up after 6 tries") {
		t.Fatalf("Deliver = %v, want giving up after 6 tries", err)
	}
	if len(attempts) != 6 || !attempts[5].Final || attempts[4].Final {
		t.Fatalf("attempts = %+v, want 6 with only the last final", attempts)
	}
	if len(s.d) != 5 {
		t.Fatalf("waits = %v, want 5", s.d)
	}
	bases := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}
	for i, d := range s.d {
		if d < bases[i]/2 || d > bases[i] {
			t.Errorf("wait %d = %s, want in [%s, %s]", i+1, d, bases[i]/2, bases[i])
		}
	}
	if n := len(rv.requests()); n != 6 {
		t.Errorf("receiver got %d requests, want 6", n)
	}
}

func TestPolicyWait(t *testing.T) {
	t.Parallel()
	p := Policy{First: time.Second, Max: 10 * time.Second}.withDefaults()
	cases := []struct {
		name string
		try  int
		err  error
		lo   time.Duration
		hi   time.Duration
	}{
		{"after try 1", 1, errors.New("x"), 500 * time.Millisecond, time.Second},
		{"after try 2", 2, errors.New("x"), time.Second, 2 * time.Second},
		{"after try 4", 4, errors.New("x"), 4 * time.Second, 8 * time.Second},
		{"after try 5, capped", 5, errors.New("x"), 5 * time.Second, 10 * time.Second},
		{"after try 60, capped without overflow", 60, errors.New("x"), 5 * time.Second, 10 * time.Second},
		{"retry-after wins", 1, &Failure{Err: errors.New("x"), RetryAfter: 7 * time.Second}, 7 * time.Second, 7 * time.Second},
		{"retry-after capped at Max", 1, fmt.Errorf("wrapped: %w", &Failure{Err: errors.New("x"), RetryAfter: time.Hour}), 10 * time.Second, 10 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var top time.Duration
			for range 500 {
				d := p.wait(tc.try, tc.err)
				if d < tc.lo || d > tc.hi {
					t.Fatalf("wait = %s, want in [%s, %s]", d, tc.lo, tc.hi)
				}
				top = max(top, d)
			}
			// Jitter spreads the waits: over 500 draws the largest reaches
			// the top quarter of the range (failure odds 0.75^500).
			if top < tc.hi-(tc.hi-tc.lo)/4 {
				t.Errorf("largest of 500 waits = %s: no jitter up to %s?", top, tc.hi)
			}
		})
	}
}

func TestDeliverStopsOnCancel(t *testing.T) {
	t.Parallel()
	t.Run("cancelled while waiting to retry", func(t *testing.T) {
		t.Parallel()
		rv := (&receiver{t: t, script: []response{{status: 500}}}).start()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sleep := func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }
		var attempts []Attempt
		err := Deliver(ctx, newHook(t, rv.url, nil), alertMessage(), Policy{}, func(a Attempt) { attempts = append(attempts, a) }, sleep)
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "HTTP 500") {
			t.Fatalf("Deliver = %v, want context.Canceled and the last error", err)
		}
		if len(attempts) != 2 || attempts[0].Final || attempts[1].Try != 2 || !attempts[1].Final || attempts[1].Err != "not sent: context canceled" {
			t.Errorf("attempts = %+v, want a failed try and a final not-sent one", attempts)
		}
		if n := len(rv.requests()); n != 1 {
			t.Errorf("receiver got %d requests, want 1", n)
		}
	})
	t.Run("cancelled before the first try", func(t *testing.T) {
		t.Parallel()
		rv := (&receiver{t: t, script: []response{{status: 200}}}).start()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var attempts []Attempt
		err := Deliver(ctx, newHook(t, rv.url, nil), alertMessage(), Policy{}, func(a Attempt) { attempts = append(attempts, a) }, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Deliver = %v, want context.Canceled", err)
		}
		if len(attempts) != 1 || !attempts[0].Final || attempts[0].Err != "not sent: context canceled" {
			t.Errorf("attempts = %+v", attempts)
		}
		if n := len(rv.requests()); n != 0 {
			t.Errorf("receiver got %d requests, want 0", n)
		}
	})
	t.Run("cancelled during a hanging request", func(t *testing.T) {
		t.Parallel()
		rv := (&receiver{t: t, hang: true}).start()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		var attempts []Attempt
		start := time.Now()
		err := Deliver(ctx, newHook(t, rv.url, func(c *WebhookConfig) { c.Timeout = time.Minute }), alertMessage(), Policy{}, func(a Attempt) { attempts = append(attempts, a) }, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Deliver = %v, want context.DeadlineExceeded", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("Deliver took %s after its context ended at 200ms", took)
		}
		if len(attempts) != 1 || !attempts[0].Final || attempts[0].Err == "" {
			t.Errorf("attempts = %+v, want one final failure", attempts)
		}
	})
}
