package deliver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const testSecret = "whsec-0123456789abcdef"

type response struct {
	status int
	header map[string]string
	body   string
}

// receiver is a real HTTP webhook receiver that checks every request the
// way the package doc tells receivers to, then answers from a script (the
// last answer repeats).
type receiver struct {
	t         *testing.T
	sigHeader string     // default X-Flopledger-Signature
	script    []response // answers in order
	hang      bool       // never answer; wait for the client to give up
	url       string

	mu   sync.Mutex
	reqs []gotRequest
}

type gotRequest struct {
	header http.Header
	body   []byte
	fields map[string]any
}

func (rv *receiver) start() *receiver {
	rv.t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(rv.serve))
	rv.t.Cleanup(srv.Close)
	rv.url = srv.URL + "/hooks/flopledger"
	return rv
}

func (rv *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rv.t.Errorf("reading body: %v", err)
		return
	}
	if problem := rv.verify(r, body); problem != "" {
		rv.t.Errorf("receiver rejected the request: %s", problem)
		http.Error(w, problem, http.StatusBadRequest)
		return
	}
	var fields map[string]any
	if err := json.Unmarshal(body, &fields); err != nil {
		rv.t.Errorf("body is not a JSON object: %v", err)
	}
	if text, ok := fields["text"].(string); !ok || text == "" {
		rv.t.Errorf(`body has no top-level "text" string: %s`, body)
		http.Error(w, "no_text", http.StatusBadRequest) // as Slack answers
		return
	}
	rv.mu.Lock()
	n := len(rv.reqs)
	rv.reqs = append(rv.reqs, gotRequest{header: r.Header.Clone(), body: body, fields: fields})
	rv.mu.Unlock()
	if rv.hang {
		<-r.Context().Done()
		return
	}
	a := rv.script[min(n, len(rv.script)-1)]
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

// verify follows the package doc's recipe literally, without calling Verify.
func (rv *receiver) verify(r *http.Request, body []byte) string {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("User-Agent") != "flopledger" {
		return fmt.Sprintf("method %s, Content-Type %q, User-Agent %q", r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"))
	}
	ts := r.Header.Get("X-Flopledger-Timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "bad timestamp " + ts
	}
	if d := time.Since(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "stale timestamp " + ts
	}
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write([]byte(ts + "." + string(body)))
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	header := rv.sigHeader
	if header == "" {
		header = "X-Flopledger-Signature"
	}
	if !hmac.Equal([]byte(r.Header.Get(header)), []byte(want)) {
		return "signature mismatch"
	}
	if r.Header.Get("X-Flopledger-Delivery") == "" {
		return "no delivery ID"
	}
	return ""
}

func (rv *receiver) requests() []gotRequest {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return append([]gotRequest(nil), rv.reqs...)
}

func newHook(t *testing.T, url string, edit func(*WebhookConfig)) Channel {
	t.Helper()
	c := WebhookConfig{URL: url, Secret: testSecret, Timeout: 5 * time.Second}
	if edit != nil {
		edit(&c)
	}
	ch, err := NewWebhook("ops-slack", c)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

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

func alertMessage() Message {
	return Message{
		Subject: "Budget alert",
		Text:    "support-chat used 92% of its October FLOPs budget",
		Webhook: struct {
			Kind     string `json:"kind"`
			Workload string `json:"workload"`
			Percent  int    `json:"percent"`
		}{"budget", "support-chat", 92},
	}
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

func TestWebhookStatuses(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Second)
	cases := []struct {
		name          string
		script        []response
		wantRequests  int
		wantPermanent bool // and failed
		wantErr       string
		wantWaits     []time.Duration // exact; nil: not checked
	}{
		{name: "400 invalid_payload is permanent", script: []response{{status: 400, body: "invalid_payload"}}, wantRequests: 1, wantPermanent: true, wantErr: "HTTP 400 Bad Request: invalid_payload"},
		{name: "403 is permanent", script: []response{{status: 403, body: "action_prohibited"}}, wantRequests: 1, wantPermanent: true, wantErr: "action_prohibited"},
		{name: "404 is permanent", script: []response{{status: 404, body: "channel_not_found"}}, wantRequests: 1, wantPermanent: true, wantErr: "channel_not_found"},
		{name: "410 is permanent", script: []response{{status: 410, body: "channel_is_archived"}}, wantRequests: 1, wantPermanent: true, wantErr: "channel_is_archived"},
		{name: "308 redirect is not followed", script: []response{{status: 308, header: map[string]string{"Location": "/elsewhere"}}}, wantRequests: 1, wantPermanent: true, wantErr: "redirects are not followed"},
		{name: "408 is retried", script: []response{{status: 408}, {status: 200}}, wantRequests: 2},
		{name: "500 is retried", script: []response{{status: 500}, {status: 204}}, wantRequests: 2},
		{name: "429 waits Retry-After seconds", script: []response{{status: 429, header: map[string]string{"Retry-After": "1"}}, {status: 200}}, wantRequests: 2, wantWaits: []time.Duration{time.Second}},
		{name: "429 Retry-After is bounded by Max", script: []response{{status: 429, header: map[string]string{"Retry-After": "3600"}}, {status: 200}}, wantRequests: 2, wantWaits: []time.Duration{3 * time.Second}},
		{name: "503 Retry-After as an HTTP date", script: []response{{status: 503, header: map[string]string{"Retry-After": now.Add(2 * time.Second).UTC().Format(http.TimeFormat)}}, {status: 200}}, wantRequests: 2, wantWaits: []time.Duration{2 * time.Second}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rv := (&receiver{t: t, script: tc.script}).start()
			ch := newHook(t, rv.url, func(c *WebhookConfig) { c.Now = func() time.Time { return now } })
			var s sleeps
			var attempts []Attempt
			err := Deliver(context.Background(), ch, alertMessage(), Policy{Tries: 3, First: time.Second, Max: 3 * time.Second},
				func(a Attempt) { attempts = append(attempts, a) }, s.sleep)
			if tc.wantPermanent {
				if !IsPermanent(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Deliver = %v, want a permanent failure with %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Deliver: %v", err)
			}
			if n := len(rv.requests()); n != tc.wantRequests {
				t.Errorf("receiver got %d requests, want %d", n, tc.wantRequests)
			}
			if len(attempts) != tc.wantRequests || !attempts[len(attempts)-1].Final {
				t.Errorf("attempts = %+v", attempts)
			}
			if tc.wantWaits != nil && fmt.Sprint(s.d) != fmt.Sprint(tc.wantWaits) {
				t.Errorf("waits = %v, want %v", s.d, tc.wantWaits)
			}
		})
	}
}

func TestWebhookTimeout(t *testing.T) {
	t.Parallel()
	rv := (&receiver{t: t, hang: true}).start()
	ch := newHook(t, rv.url, func(c *WebhookConfig) { c.Timeout = 200 * time.Millisecond })
	var attempts []Attempt
	start := time.Now()
	err := Deliver(context.Background(), ch, alertMessage(), Policy{Tries: 2}, func(a Attempt) { attempts = append(attempts, a) }, noSleep)
	if err == nil || IsPermanent(err) {
		t.Fatalf("Deliver = %v, want a transient failure", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("two 200ms tries took %s", took)
	}
	if len(attempts) != 2 || !attempts[1].Final {
		t.Fatalf("attempts = %+v, want 2, the last final", attempts)
	}
	for _, a := range attempts {
		if !strings.Contains(a.Err, "no response within 200ms") {
			t.Errorf("attempt %d: Err = %q, want the timeout named", a.Try, a.Err)
		}
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

func TestWebhookBody(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		extra   any
		want    string
		wantErr string
	}{
		{name: "text only", extra: nil, want: `{"text":"budget \u003c 10% left"}`},
		{name: "struct fields merged, keys sorted", extra: struct {
			Period string `json:"period"`
			Total  string `json:"total_flops"`
		}{"2026-10", "1235000000000000000000"}, want: `{"period":"2026-10","text":"budget \u003c 10% left","total_flops":"1235000000000000000000"}`},
		{name: "map with blocks", extra: map[string]any{"blocks": []any{}}, want: `{"blocks":[],"text":"budget \u003c 10% left"}`},
		{name: "raw JSON object", extra: json.RawMessage(`{"a": 1}`), want: `{"a":1,"text":"budget \u003c 10% left"}`},
		{name: "own text field refused", extra: map[string]string{"text": "other"}, wantErr: `must not have a "text" field`},
		{name: "array refused", extra: []int{1}, wantErr: "must be a JSON object"},
		{name: "string refused", extra: "hello", wantErr: "must be a JSON object"},
		{name: "unmarshalable refused", extra: map[string]any{"f": func() {}}, wantErr: "webhook payload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := webhookBody(Message{Text: "budget < 10% left", Webhook: tc.extra})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("body = %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

func TestWebhookRefusesBadMessageWithoutSending(t *testing.T) {
	t.Parallel()
	rv := (&receiver{t: t, script: []response{{status: 200}}}).start()
	ch := newHook(t, rv.url, nil)
	cases := []struct {
		name string
		m    Message
	}{
		{"no text", Message{ID: "a"}},
		{"bad ID", Message{ID: "a b", Text: "t"}},
		{"payload with text", Message{ID: "a", Text: "t", Webhook: map[string]string{"text": "u"}}},
	}
	// Not parallel: the request count below must see every case finished.
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := ch.Send(context.Background(), tc.m); !IsPermanent(err) {
				t.Errorf("Send = %v, want a permanent failure", err)
			}
		})
	}
	if n := len(rv.requests()); n != 0 {
		t.Errorf("receiver got %d requests, want 0", n)
	}
}

func TestWebhookHidesURLToken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	ch := newHook(t, "http://"+addr+"/services/T0001/B0001/SECRETTOKEN", nil)
	err = ch.Send(context.Background(), Message{ID: "a", Text: "t"})
	if err == nil || IsPermanent(err) {
		t.Fatalf("Send = %v, want a transient failure", err)
	}
	if strings.Contains(err.Error(), "SECRETTOKEN") || !strings.Contains(err.Error(), "http://"+addr+"/…") {
		t.Errorf("error %q shows the URL path or hides the host", err)
	}
}

func TestTestSendsOneWebhook(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		status  int
		wantErr bool
	}{
		{"receiver accepts", 200, false},
		{"receiver fails: no retry", 500, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rv := (&receiver{t: t, sigHeader: "X-Hub-Signature-256", script: []response{{status: tc.status}}}).start()
			ch := newHook(t, rv.url, func(c *WebhookConfig) { c.Header = "X-Hub-Signature-256" })
			err := Test(context.Background(), ch)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Test = %v, want error %v", err, tc.wantErr)
			}
			reqs := rv.requests()
			if len(reqs) != 1 {
				t.Fatalf("receiver got %d requests, want exactly 1", len(reqs))
			}
			if text, _ := reqs[0].fields["text"].(string); !strings.HasPrefix(text, "flopledger test message") {
				t.Errorf("text = %q", text)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	now := time.Unix(1793512800, 0)
	body := []byte(`{"text":"hi"}`)
	ts := "1793512800"
	good := sign(testSecret, ts, body)
	cases := []struct {
		name      string
		secret    string
		timestamp string
		signature string
		body      []byte
		wantErr   string
	}{
		{"valid", testSecret, ts, good, body, ""},
		{"body changed", testSecret, ts, good, []byte(`{"text":"ho"}`), "signature does not match"},
		{"valid with another secret", "another-secret-0123", ts, sign("another-secret-0123", ts, body), body, ""},
		{"signed with other secret", testSecret, ts, sign("another-secret-0123", ts, body), body, "signature does not match"},
		{"timestamp changed", testSecret, "1793512801", good, body, "signature does not match"},
		{"replayed after 6 minutes", testSecret, strconv.FormatInt(now.Add(-6*time.Minute).Unix(), 10), sign(testSecret, strconv.FormatInt(now.Add(-6*time.Minute).Unix(), 10), body), body, "beyond 5m0s"},
		{"from the future", testSecret, strconv.FormatInt(now.Add(6*time.Minute).Unix(), 10), sign(testSecret, strconv.FormatInt(now.Add(6*time.Minute).Unix(), 10), body), body, "beyond 5m0s"},
		{"no timestamp", testSecret, "", good, body, "not unix seconds"},
		{"no sha256= prefix", testSecret, ts, strings.TrimPrefix(good, "sha256="), body, "signature does not match"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Verify(tc.secret, tc.timestamp, tc.signature, tc.body, now, 5*time.Minute)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnverified) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Verify = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
