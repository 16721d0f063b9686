package deliver

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// SMTPConfig configures an e-mail channel. Zero values take the defaults
// named on each field.
type SMTPConfig struct {
	Host string
	// Port defaults to 587 for TLS "starttls", 465 for "tls", 25 for "none".
	Port int
	// Username and Password turn on SMTP AUTH; both or neither. The
	// password never appears in errors or logs.
	Username, Password string
	// Auth is the AUTH mechanism: "plain" (default) or "login" (older
	// Microsoft servers).
	Auth string
	// From is the sender, "reports@example.com" or
	// "flopledger <reports@example.com>"; its domain also ends the Message-ID.
	From string
	// To receive one message together; at least one.
	To []string
	// TLS is "starttls" (default: upgrade a plain connection and refuse a
	// server that cannot), "tls" (implicit TLS, usually port 465) or "none"
	// (plain text, for a local relay). With "none", AUTH is refused unless
	// Host is a loopback address, because it would send the password in
	// clear over the network.
	TLS string
	// Timeout bounds connecting and each SMTP exchange; default 30s.
	Timeout time.Duration
	// RootCAs verifies the server certificate; nil means the system roots.
	// Set it for a private CA, or in tests for a self-signed certificate:
	// there is deliberately no switch to skip verification.
	RootCAs *x509.CertPool
	// Now stamps the Date header; nil means time.Now.
	Now func() time.Time
}

// WebhookConfig configures a webhook channel.
type WebhookConfig struct {
	// URL receives the POST: http or https. It can hold a token (Slack's
	// do), so it is never shown whole in errors.
	URL string
	// Secret is the HMAC-SHA256 key, at least 16 bytes. It is required even
	// for Slack, which ignores the signature, so that no receiver ever has
	// to accept unsigned deliveries.
	Secret string
	// Timeout bounds one request, from connecting to reading the status;
	// default 15s.
	Timeout time.Duration
	// Header names the signature header; default "X-Flopledger-Signature".
	Header string
	// Now stamps X-Flopledger-Timestamp and resolves a Retry-After date;
	// nil means time.Now.
	Now func() time.Time
}

// Defaults used when a config leaves them zero.
const (
	DefaultSMTPTimeout     = 30 * time.Second
	DefaultWebhookTimeout  = 15 * time.Second
	DefaultSignatureHeader = "X-Flopledger-Signature"
	// MinSecretLen is the shortest webhook secret accepted, in bytes: a
	// shorter HMAC key can be guessed.
	MinSecretLen = 16
)

// FieldError is one problem with one config field.
type FieldError struct {
	Field   string // the Go field name, lower-case: "host", "to[1]"
	Problem string
}

// ConfigError lists every problem with a channel's config, so that whoever
// fixes the environment fixes it in one go.
type ConfigError struct {
	Kind, Channel string
	Fields        []FieldError
}

func (e *ConfigError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + ": " + f.Problem
	}
	name := ""
	if e.Channel != "" {
		name = fmt.Sprintf(" %q", e.Channel)
	}
	return fmt.Sprintf("deliver: %s channel%s: %s", e.Kind, name, strings.Join(parts, "; "))
}

type problems []FieldError

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
}

// err names the channel too; an empty name is itself a problem.
func (p problems) err(kind, name string, named bool) error {
	if named && name == "" {
		p = append(problems{{Field: "name", Problem: "required"}}, p...)
	}
	if len(p) == 0 {
		return nil
	}
	return &ConfigError{Kind: kind, Channel: name, Fields: p}
}

// Validate reports every problem with c at once, as a *ConfigError.
func (c SMTPConfig) Validate() error { return c.check().err(KindEmail, "", false) }

func (c SMTPConfig) check() problems {
	var p problems
	switch {
	case c.Host == "":
		p.add("host", "required")
	case strings.ContainsAny(c.Host, ":/ "):
		p.add("host", "want a bare host name or IP address; the port goes in port")
	}
	if c.Port < 0 || c.Port > 65535 {
		p.add("port", "must be 1..65535, or 0 for the default (got %d)", c.Port)
	}
	switch c.TLS {
	case "", "starttls", "tls", "none":
	default:
		p.add("tls", `must be "starttls", "tls" or "none" (got %q)`, c.TLS)
	}
	auth := c.Username != "" || c.Password != ""
	if c.Username == "" && c.Password != "" {
		p.add("username", "required when password is set")
	}
	if c.Username != "" && c.Password == "" {
		p.add("password", "required when username is set")
	}
	switch c.Auth {
	case "", "plain", "login":
	default:
		p.add("auth", `must be "plain" or "login" (got %q)`, c.Auth)
	}
	if c.Auth != "" && !auth {
		p.add("auth", "set, but username and password are empty")
	}
	if auth && c.TLS == "none" && c.Host != "" && !isLoopback(c.Host) {
		p.add("tls", `"none" would send the password unencrypted to %s; use "starttls" or "tls"`, c.Host)
	}
	if c.From == "" {
		p.add("from", "required")
	} else if _, err := mail.ParseAddress(c.From); err != nil {
		p.add("from", "not an e-mail address: %v", err)
	}
	if len(c.To) == 0 {
		p.add("to", "at least one recipient required")
	}
	for i, to := range c.To {
		if _, err := mail.ParseAddress(to); err != nil {
			p.add(fmt.Sprintf("to[%d]", i), "%q is not an e-mail address: %v", to, err)
		}
	}
	if c.Timeout < 0 {
		p.add("timeout", "must not be negative")
	}
	return p
}

// Validate reports every problem with c at once, as a *ConfigError. The URL
// is not echoed, because it may hold a token.
func (c WebhookConfig) Validate() error { return c.check().err(KindWebhook, "", false) }

func (c WebhookConfig) check() problems {
	var p problems
	if c.URL == "" {
		p.add("url", "required")
	} else if u, err := url.Parse(c.URL); err != nil {
		p.add("url", "does not parse")
	} else if u.Scheme != "http" && u.Scheme != "https" {
		p.add("url", "must be an http or https URL")
	} else if u.Host == "" {
		p.add("url", "has no host")
	}
	if c.Secret == "" {
		p.add("secret", "required (the HMAC key that signs every request)")
	} else if len(c.Secret) < MinSecretLen {
		p.add("secret", "must be at least %d bytes (got %d)", MinSecretLen, len(c.Secret))
	}
	if c.Timeout < 0 {
		p.add("timeout", "must not be negative")
	}
	if c.Header != "" && !validHeaderName(c.Header) {
		p.add("header", "not a valid HTTP header name: %q", c.Header)
	}
	return p
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func validHeaderName(s string) bool {
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-'
		if !ok {
			return false
		}
	}
	return s != ""
}
