package deliver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Kinds of Channel, as Channel.Kind and Attempt.Kind report them.
const (
	KindEmail   = "email"
	KindWebhook = "webhook"
)

// Message is what a Channel sends. The e-mail channel uses Subject, HTML,
// Text and Attachments; the webhook channel uses Text and Webhook.
type Message struct {
	// ID identifies this delivery across retries; see the package doc.
	// Deliver and Test fill it in when it is empty. It is 1 to 64 ASCII
	// letters, digits, '.', '_' or '-', because it goes into a Message-ID
	// and an HTTP header unescaped.
	ID string
	// Subject is the e-mail subject; required for e-mail.
	Subject string
	// HTML is the e-mail body, self-contained (no remote images or
	// styles). Optional: without it the e-mail is plain text only.
	HTML string
	// Text is the plain-text alternative of the e-mail and the "text" of
	// the webhook body. Required, because Slack refuses a webhook without
	// it and some mail readers show only the plain part.
	Text string
	// Attachments go with the e-mail only: a webhook carries data in
	// Webhook or links to it.
	Attachments []Attachment
	// Webhook holds extra fields for the webhook body. It must marshal to a
	// JSON object (a struct or a map) or be nil, and must not have a "text"
	// field, which is always Text: one source for the text prevents an
	// e-mail and a Slack post of the same alert from saying different things.
	Webhook any
}

// Attachment is a file attached to an e-mail, such as
// {Name: "report-2026-10.csv", ContentType: "text/csv", Data: csv}.
type Attachment struct {
	Name        string
	ContentType string // defaults to application/octet-stream
	Data        []byte
}

// Channel sends a Message once. It does not retry: Deliver does.
type Channel interface {
	// Name is the caller's name for the channel, e.g. "finance-mail".
	Name() string
	// Kind is KindEmail or KindWebhook.
	Kind() string
	// Send sends m once and returns nil once the receiver has accepted it.
	// Failures that retrying cannot fix are *Failure with Permanent set.
	Send(ctx context.Context, m Message) error
}

// Failure is a classified Send error. Deliver treats errors of any other
// type as transient, because a needless retry costs less than a lost report.
type Failure struct {
	Err error
	// Permanent means retrying cannot help (see the package doc).
	Permanent bool
	// RetryAfter is how long the receiver asked us to wait (HTTP
	// Retry-After); zero when it did not say.
	RetryAfter time.Duration
}

func (f *Failure) Error() string { return f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

func permanent(format string, args ...any) error {
	return &Failure{Err: fmt.Errorf(format, args...), Permanent: true}
}

// IsPermanent reports whether err, or an error it wraps, is a permanent
// *Failure.
func IsPermanent(err error) bool {
	var f *Failure
	return errors.As(err, &f) && f.Permanent
}

// NewID returns a random delivery ID: 32 hex digits, 128 bits, enough that
// two deliveries never share one.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// checkMessage returns the problems common to every kind of channel.
func checkMessage(m Message) error {
	if !validID(m.ID) {
		return permanent("message ID %q: want 1 to 64 of A-Z a-z 0-9 . _ -", m.ID)
	}
	if m.Text == "" {
		return permanent("message has no text")
	}
	return nil
}

func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}
