package deliver

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *ConfigError", err)
	}
	var f []string
	for _, fe := range ce.Fields {
		f = append(f, fe.Field)
	}
	return f
}

func TestNewEmailValidates(t *testing.T) {
	t.Parallel()
	good := SMTPConfig{Host: "smtp.example.com", From: "reports@example.com", To: []string{"ada@example.com"}, Username: "reports", Password: "pw"}
	cases := []struct {
		name   string
		edit   func(*SMTPConfig)
		fields []string
	}{
		{"valid, starttls by default with auth", func(c *SMTPConfig) {}, nil},
		{"missing host", func(c *SMTPConfig) { c.Host = "" }, []string{"host"}},
		{"host with a port", func(c *SMTPConfig) { c.Host = "smtp.example.com:587" }, []string{"host"}},
		{"bad port", func(c *SMTPConfig) { c.Port = 70000 }, []string{"port"}},
		{"negative port", func(c *SMTPConfig) { c.Port = -1 }, []string{"port"}},
		{"unknown tls mode", func(c *SMTPConfig) { c.TLS = "ssl" }, []string{"tls"}},
		{"no recipients", func(c *SMTPConfig) { c.To = nil }, []string{"to"}},
		{"bad recipient among good", func(c *SMTPConfig) { c.To = []string{"ada@example.com", "not an address"} }, []string{"to[1]"}},
		{"bad from", func(c *SMTPConfig) { c.From = "reports at example.com" }, []string{"from"}},
		{"password without username", func(c *SMTPConfig) { c.Username = "" }, []string{"username"}},
		{"username without password", func(c *SMTPConfig) { c.Password = "" }, []string{"password"}},
		{"unknown auth", func(c *SMTPConfig) { c.Auth = "cram-md5" }, []string{"auth"}},
		{"auth mechanism without credentials", func(c *SMTPConfig) { c.Username, c.Password, c.Auth = "", "", "login" }, []string{"auth"}},
		{"auth over plain text to a remote host", func(c *SMTPConfig) { c.TLS = "none" }, []string{"tls"}},
		{"auth over plain text to loopback is allowed", func(c *SMTPConfig) { c.TLS, c.Host = "none", "127.0.0.1" }, nil},
		{"plain relay without auth", func(c *SMTPConfig) { c.TLS, c.Username, c.Password = "none", "", "" }, nil},
		{"implicit tls", func(c *SMTPConfig) { c.TLS, c.Port = "tls", 465 }, nil},
		{"negative timeout", func(c *SMTPConfig) { c.Timeout = -1 }, []string{"timeout"}},
		{"every problem at once", func(c *SMTPConfig) {
			*c = SMTPConfig{Port: 99999, TLS: "yes", Password: "pw", From: "x", To: []string{"y"}, Timeout: -1}
		}, []string{"host", "port", "tls", "username", "from", "to[0]", "timeout"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := good
			c.To = append([]string(nil), good.To...)
			tc.edit(&c)
			ch, err := NewEmail("finance-mail", c)
			if got := fieldsOf(t, err); !reflect.DeepEqual(got, tc.fields) {
				t.Fatalf("problems with %v, want %v (error: %v)", got, tc.fields, err)
			}
			if err == nil && (ch == nil || ch.Kind() != KindEmail || ch.Name() != "finance-mail") {
				t.Fatalf("channel = %v", ch)
			}
			if err != nil && strings.Contains(err.Error(), "pw") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
	if _, err := NewEmail("", good); !reflect.DeepEqual(fieldsOf(t, err), []string{"name"}) {
		t.Errorf("empty name: %v", err)
	}
}

func TestNewWebhookValidates(t *testing.T) {
	t.Parallel()
	good := WebhookConfig{URL: "https://hooks.slack.com/services/T0/B0/TOKEN123", Secret: testSecret}
	cases := []struct {
		name   string
		edit   func(*WebhookConfig)
		fields []string
	}{
		{"valid https", func(c *WebhookConfig) {}, nil},
		{"valid http with custom header", func(c *WebhookConfig) { c.URL, c.Header = "http://receiver.internal:8080/hook", "X-Signature" }, nil},
		{"missing url", func(c *WebhookConfig) { c.URL = "" }, []string{"url"}},
		{"not http", func(c *WebhookConfig) { c.URL = "ftp://example.com/hook" }, []string{"url"}},
		{"no scheme", func(c *WebhookConfig) { c.URL = "hooks.slack.com/services/x" }, []string{"url"}},
		{"no host", func(c *WebhookConfig) { c.URL = "https:///hook" }, []string{"url"}},
		{"unparsable", func(c *WebhookConfig) { c.URL = "https://exa mple.com/%zz" }, []string{"url"}},
		{"missing secret", func(c *WebhookConfig) { c.Secret = "" }, []string{"secret"}},
		{"short secret", func(c *WebhookConfig) { c.Secret = "short" }, []string{"secret"}},
		{"bad header name", func(c *WebhookConfig) { c.Header = "X Signature" }, []string{"header"}},
		{"negative timeout", func(c *WebhookConfig) { c.Timeout = -1 }, []string{"timeout"}},
		{"every problem at once", func(c *WebhookConfig) { *c = WebhookConfig{URL: "mailto:x@example.com", Timeout: -1, Header: "a:b"} },
			[]string{"url", "secret", "timeout", "header"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := good
			tc.edit(&c)
			ch, err := NewWebhook("ops-slack", c)
			if got := fieldsOf(t, err); !reflect.DeepEqual(got, tc.fields) {
				t.Fatalf("problems with %v, want %v (error: %v)", got, tc.fields, err)
			}
			if err == nil && (ch == nil || ch.Kind() != KindWebhook) {
				t.Fatalf("channel = %v", ch)
			}
			if err != nil && strings.Contains(err.Error(), "TOKEN123") {
				t.Errorf("error %q shows the URL's token", err)
			}
		})
	}
}
