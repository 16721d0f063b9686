package deliver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
