package deliver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// email sends through one SMTP server; see NewEmail.
type email struct {
	name   string
	c      SMTPConfig // defaults applied
	from   *mail.Address
	to     []*mail.Address
	domain string // of From, ends the Message-ID
}

// NewEmail returns an e-mail channel, or a *ConfigError naming every
// problem with c. It does not connect: Test does.
//
// Each Send is one SMTP session that sends one message to all of c.To. If
// the server refuses any recipient, nobody gets the message and the error
// names the refused addresses, so that a retry cannot send it twice to the
// others.
func NewEmail(name string, c SMTPConfig) (Channel, error) {
	if err := c.check().err(KindEmail, name, true); err != nil {
		return nil, err
	}
	if c.TLS == "" {
		c.TLS = "starttls"
	}
	if c.Port == 0 {
		c.Port = map[string]int{"starttls": 587, "tls": 465, "none": 25}[c.TLS]
	}
	if c.Auth == "" {
		c.Auth = "plain"
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultSMTPTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	e := &email{name: name, c: c}
	e.from, _ = mail.ParseAddress(c.From) // Validate parsed it already
	e.domain = e.from.Address[strings.LastIndexByte(e.from.Address, '@')+1:]
	for _, to := range c.To {
		a, _ := mail.ParseAddress(to)
		e.to = append(e.to, a)
	}
	return e, nil
}

func (e *email) Name() string { return e.name }
func (e *email) Kind() string { return KindEmail }

// Send sends m once; see NewEmail.
func (e *email) Send(ctx context.Context, m Message) error {
	if err := checkMessage(m); err != nil {
		return err
	}
	msg, err := e.build(m)
	if err != nil {
		return &Failure{Err: fmt.Errorf("email %s: %w", e.name, err), Permanent: true}
	}
	// go-mail watches ctx only while dialling; closing the connection when
	// ctx ends makes a cancelled delivery stop mid-session too.
	var stop func() bool
	dial := func(dctx context.Context, network, addr string) (net.Conn, error) {
		var conn net.Conn
		var err error
		d := &net.Dialer{}
		if e.c.TLS == "tls" {
			conn, err = (&tls.Dialer{NetDialer: d, Config: e.tlsConfig()}).DialContext(dctx, network, addr)
		} else {
			conn, err = d.DialContext(dctx, network, addr)
		}
		if err == nil {
			stop = context.AfterFunc(ctx, func() { conn.Close() })
		}
		return conn, err
	}
	client, err := gomail.NewClient(e.c.Host, e.options(dial)...)
	if err != nil {
		return &Failure{Err: fmt.Errorf("email %s: %w", e.name, err), Permanent: true}
	}
	err = client.DialAndSendWithContext(ctx, msg)
	if stop != nil {
		stop()
	}
	return e.classify(err)
}

func (e *email) build(m Message) (*gomail.Msg, error) {
	if m.Subject == "" {
		return nil, errors.New("message has no subject")
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(e.from)
	msg.ToMailAddress(e.to...)
	msg.Subject(m.Subject)
	msg.SetDateWithValue(e.c.Now().UTC())
	// The same ID on every retry lets mail systems drop a duplicate that a
	// timed-out try delivered after all.
	msg.SetMessageIDWithValue(m.ID + "@" + e.domain)
	msg.SetUserAgent("flopledger")
	// RFC 3834: tells autoresponders (out-of-office) not to reply.
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	for i, a := range m.Attachments {
		if a.Name == "" {
			return nil, fmt.Errorf("attachment %d has no name", i)
		}
		ct := a.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		err := msg.AttachReader(a.Name, bytes.NewReader(a.Data), gomail.WithFileContentType(gomail.ContentType(ct)))
		if err != nil {
			return nil, fmt.Errorf("attachment %q: %w", a.Name, err)
		}
	}
	return msg, nil
}

func (e *email) tlsConfig() *tls.Config {
	return &tls.Config{ServerName: e.c.Host, RootCAs: e.c.RootCAs, MinVersion: tls.VersionTLS12}
}

func (e *email) options(dial gomail.DialContextFunc) []gomail.Option {
	opts := []gomail.Option{
		gomail.WithPort(e.c.Port),
		gomail.WithTimeout(e.c.Timeout),
		gomail.WithTLSConfig(e.tlsConfig()),
		gomail.WithDialContextFunc(dial),
	}
	switch e.c.TLS {
	case "tls":
		// The dialler above already speaks TLS; this stops go-mail from
		// also trying STARTTLS.
		opts = append(opts, gomail.WithSSL())
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if e.c.Username != "" {
		mech := map[string]gomail.SMTPAuthType{"plain": gomail.SMTPAuthPlain, "login": gomail.SMTPAuthLogin}[e.c.Auth]
		if e.c.TLS == "none" {
			// Validate allowed this only for a loopback host.
			mech = map[string]gomail.SMTPAuthType{"plain": gomail.SMTPAuthPlainNoEnc, "login": gomail.SMTPAuthLoginNoEnc}[e.c.Auth]
		}
		opts = append(opts, gomail.WithSMTPAuth(mech), gomail.WithUsername(e.c.Username), gomail.WithPassword(e.c.Password))
	}
	return opts
}

// classify marks what retrying cannot fix as permanent: an SMTP 5xx reply
// and a certificate that does not verify. Anything else (connection
// refused, timeout, 4xx) may pass.
func (e *email) classify(err error) error {
	if err == nil {
		return nil
	}
	perm := false
	var te *textproto.Error
	var se *gomail.SendError
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	switch {
	case errors.As(err, &te) && te.Code >= 500,
		errors.As(err, &se) && se.ErrorCode() >= 500,
		errors.As(err, &cv), errors.As(err, &ua), errors.As(err, &he):
		perm = true
	}
	wrapped := fmt.Errorf("smtp %s:%d: %w", e.c.Host, e.c.Port, err)
	if e.c.Password != "" && strings.Contains(wrapped.Error(), e.c.Password) {
		// A server may echo what it was sent. The cause is dropped, not
		// just its text, so that nobody can print it from the chain.
		wrapped = errors.New(strings.ReplaceAll(wrapped.Error(), e.c.Password, "[password]"))
	}
	return &Failure{Err: wrapped, Permanent: perm}
}
