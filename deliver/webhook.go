package deliver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Header names every webhook request carries; the signature header's name
// is WebhookConfig.Header.
const (
	HeaderTimestamp = "X-Flopledger-Timestamp"
	HeaderDelivery  = "X-Flopledger-Delivery"
)

// webhook POSTs signed JSON to one URL; see NewWebhook.
type webhook struct {
	name   string
	c      WebhookConfig // defaults applied
	shown  string        // the URL without path or query, for errors
	client *http.Client
}

// NewWebhook returns a webhook channel, or a *ConfigError naming every
// problem with c. It does not connect: Test does.
func NewWebhook(name string, c WebhookConfig) (Channel, error) {
	if err := c.check().err(KindWebhook, name, true); err != nil {
		return nil, err
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultWebhookTimeout
	}
	if c.Header == "" {
		c.Header = DefaultSignatureHeader
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	u, _ := url.Parse(c.URL) // Validate parsed it already
	return &webhook{
		name:  name,
		c:     c,
		shown: u.Scheme + "://" + u.Host + "/…",
		client: &http.Client{
			// A redirected POST becomes a GET on 301-303, and on 307/308
			// the signed body goes to a URL nobody configured: report the
			// redirect instead, so the URL gets fixed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

func (w *webhook) Name() string { return w.name }
func (w *webhook) Kind() string { return KindWebhook }

// Send POSTs m once; see the package doc for the body and headers.
func (w *webhook) Send(ctx context.Context, m Message) error {
	if err := checkMessage(m); err != nil {
		return err
	}
	body, err := webhookBody(m)
	if err != nil {
		return &Failure{Err: fmt.Errorf("webhook %s: %w", w.name, err), Permanent: true}
	}
	tctx, cancel := context.WithTimeout(ctx, w.c.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, w.c.URL, bytes.NewReader(body))
	if err != nil {
		return &Failure{Err: fmt.Errorf("webhook %s: %w", w.name, err), Permanent: true}
	}
	ts := strconv.FormatInt(w.c.Now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "flopledger")
	req.Header.Set(HeaderDelivery, m.ID)
	req.Header.Set(HeaderTimestamp, ts)
	req.Header.Set(w.c.Header, sign(w.c.Secret, ts, body))

	resp, err := w.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // ue's text has the whole URL, whose path may hold a token
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no response within %s: %w", w.c.Timeout, err)
		}
		return &Failure{Err: fmt.Errorf("POST %s: %w", w.shown, err)}
	}
	defer resp.Body.Close()
	// Slack explains a refusal in a short body ("no_text"); keep a little
	// of it, and drain a bit more so the connection can be reused.
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	f := &Failure{Err: fmt.Errorf("POST %s: HTTP %s", w.shown, resp.Status)}
	if s := strings.Join(strings.Fields(string(snippet)), " "); s != "" {
		f.Err = fmt.Errorf("%w: %s", f.Err, s)
	}
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
	case code >= 300 && code < 400:
		f.Err = fmt.Errorf("%w (redirects are not followed: configure the final URL)", f.Err)
		f.Permanent = true
	case code >= 400 && code < 500:
		f.Permanent = true
	}
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		f.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), w.c.Now())
	}
	return f
}

// webhookBody merges Message.Webhook's fields with "text": Message.Text.
// encoding/json sorts map keys, so one message always gives the same bytes.
func webhookBody(m Message) ([]byte, error) {
	fields := map[string]json.RawMessage{}
	if m.Webhook != nil {
		raw, err := json.Marshal(m.Webhook)
		if err != nil {
			return nil, fmt.Errorf("webhook payload: %w", err)
		}
		if string(raw) != "null" {
			if err := json.Unmarshal(raw, &fields); err != nil {
				return nil, fmt.Errorf("webhook payload must be a JSON object, not %.20s", raw)
			}
		}
		if _, ok := fields["text"]; ok {
			return nil, errors.New(`webhook payload must not have a "text" field: it is always Message.Text`)
		}
	}
	text, err := json.Marshal(m.Text)
	if err != nil {
		return nil, err
	}
	fields["text"] = text
	return json.Marshal(fields)
}

// retryAfter reads an HTTP Retry-After value, seconds or an HTTP date;
// zero when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		return max(time.Duration(s)*time.Second, 0)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

func sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp))
	mac.Write([]byte("."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// ErrUnverified is wrapped by every error Verify returns.
var ErrUnverified = errors.New("webhook not verified")

// Verify checks a received webhook as the package doc describes, for
// receivers written in Go: timestamp and signature are the header values,
// body the raw bytes read, tolerance how far the timestamp may be from now
// (five minutes is usual).
func Verify(secret, timestamp, signature string, body []byte, now time.Time, tolerance time.Duration) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q is not unix seconds", ErrUnverified, timestamp)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp is %s from now, beyond %s", ErrUnverified, d.Round(time.Second), tolerance)
	}
	if !hmac.Equal([]byte(signature), []byte(sign(secret, timestamp, body))) {
		return fmt.Errorf("%w: signature does not match", ErrUnverified)
	}
	return nil
}
