package deliver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/mail"
	"strings"
	"testing"
	"time"
)

var (
	reportDate = time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	reportCSV  = []byte("workload,flops,cost_usd\nsupport-chat,1200000000000000000000,412.50\ncafé-search,35000000000000000000,9.75\n")
)

// reportMessage is a monthly report as report/ would hand it over: a
// non-ASCII subject, an HTML body with a line long enough to need
// quoted-printable soft breaks, and a CSV attachment.
func reportMessage() Message {
	return Message{
		Subject: "FLOPs report — October 2026",
		HTML: "<!doctype html><html><body><h1>FLOPs report — October 2026</h1>" +
			"<p>Total: 1.235 ZFLOP, of which prefill 71.2%, decode 28.8%; the FLOPs plan would have cost $422.25 against $530.10 under the token plan.</p>" +
			"</body></html>",
		Text:        "FLOPs report — October 2026\nTotal: 1.235 ZFLOP\nFLOPs plan $422.25, token plan $530.10\n",
		Attachments: []Attachment{{Name: "report-2026-10.csv", ContentType: "text/csv", Data: reportCSV}},
	}
}

func emailConfig(s *smtpServer) SMTPConfig {
	return SMTPConfig{
		Host: s.host, Port: s.port, TLS: "none",
		From:    "flopledger <reports@example.com>",
		To:      []string{"Ada <ada@example.com>", "ops@example.org"},
		Timeout: 5 * time.Second,
		Now:     func() time.Time { return reportDate },
	}
}

func TestEmailDelivers(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	serverTLS := &tls.Config{Certificates: []tls.Certificate{cert}}
	cases := []struct {
		name     string
		server   *smtpServer
		config   func(SMTPConfig) SMTPConfig
		wantTLS  bool
		wantUser string
	}{
		{
			name:   "plain relay without auth",
			server: &smtpServer{},
			config: func(c SMTPConfig) SMTPConfig { return c },
		},
		{
			name:   "starttls by default with auth plain",
			server: &smtpServer{tlsConfig: serverTLS, user: "reports", pass: "s3cret-Pa55"},
			config: func(c SMTPConfig) SMTPConfig {
				c.TLS, c.RootCAs, c.Username, c.Password = "", pool, "reports", "s3cret-Pa55"
				return c
			},
			wantTLS: true, wantUser: "reports",
		},
		{
			name:   "implicit tls with auth login",
			server: &smtpServer{tlsConfig: serverTLS, implicitTLS: true, user: "reports", pass: "s3cret-Pa55"},
			config: func(c SMTPConfig) SMTPConfig {
				c.TLS, c.RootCAs, c.Auth, c.Username, c.Password = "tls", pool, "login", "reports", "s3cret-Pa55"
				return c
			},
			wantTLS: true, wantUser: "reports",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.server
			srv.start(t)
			ch, err := NewEmail("finance-mail", tc.config(emailConfig(srv)))
			if err != nil {
				t.Fatal(err)
			}
			m := reportMessage()
			m.ID = "rpt-2026-10.finance"
			var attempts []Attempt
			err = Deliver(context.Background(), ch, m, Policy{}, func(a Attempt) { attempts = append(attempts, a) }, noSleep)
			if err != nil {
				t.Fatalf("Deliver: %v", err)
			}
			if len(attempts) != 1 || !attempts[0].Final || attempts[0].Err != "" || attempts[0].Kind != KindEmail || attempts[0].Channel != "finance-mail" {
				t.Fatalf("attempts = %+v, want one final success", attempts)
			}
			got := srv.messages()
			if len(got) != 1 {
				t.Fatalf("server received %d messages, want 1", len(got))
			}
			r := got[0]
			if r.from != "reports@example.com" || strings.Join(r.rcpts, ",") != "ada@example.com,ops@example.org" {
				t.Errorf("envelope from %q to %q", r.from, r.rcpts)
			}
			if r.tls != tc.wantTLS || r.user != tc.wantUser {
				t.Errorf("tls=%v user=%q, want tls=%v user=%q", r.tls, r.user, tc.wantTLS, tc.wantUser)
			}
			checkReportMail(t, r.data, m)
		})
	}
}

func noSleep(context.Context, time.Duration) error { return nil }

func TestEmailPermanentFailures(t *testing.T) {
	t.Parallel()
	cert, _ := selfSigned(t)
	serverTLS := &tls.Config{Certificates: []tls.Certificate{cert}}
	cases := []struct {
		name    string
		server  *smtpServer
		config  func(SMTPConfig) SMTPConfig
		want    []string // in the error
		notWant string   // never in the error
	}{
		{
			name:   "recipient refused with 550",
			server: &smtpServer{refuse: "ops@example.org"},
			config: func(c SMTPConfig) SMTPConfig { return c },
			want:   []string{"550", "ops@example.org"},
		},
		{
			name:   "wrong password refused with 535, echoed by the server",
			server: &smtpServer{tlsConfig: serverTLS, implicitTLS: true, user: "reports", pass: "right-Pa55word", echoAuthErr: true},
			config: func(c SMTPConfig) SMTPConfig {
				_, pool := certPoolFor(cert)
				c.TLS, c.RootCAs, c.Username, c.Password = "tls", pool, "reports", "wrong-Pa55word"
				return c
			},
			want:    []string{"535", "[password]"},
			notWant: "wrong-Pa55word",
		},
		{
			name:   "server certificate not trusted",
			server: &smtpServer{tlsConfig: serverTLS},
			config: func(c SMTPConfig) SMTPConfig {
				c.TLS = "starttls" // RootCAs nil: the system roots, which do not know the test CA
				return c
			},
			want: []string{"certificate"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.server
			srv.start(t)
			ch, err := NewEmail("finance-mail", tc.config(emailConfig(srv)))
			if err != nil {
				t.Fatal(err)
			}
			var attempts []Attempt
			err = Deliver(context.Background(), ch, reportMessage(), Policy{}, func(a Attempt) { attempts = append(attempts, a) }, noSleep)
			if err == nil || !IsPermanent(err) {
				t.Fatalf("Deliver = %v, want a permanent failure", err)
			}
			t.Logf("error: %v", err)
			if len(attempts) != 1 || !attempts[0].Final {
				t.Errorf("attempts = %+v, want one final attempt (no retry)", attempts)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.notWant != "" && (strings.Contains(err.Error(), tc.notWant) || strings.Contains(attempts[0].Err, tc.notWant)) {
				t.Errorf("error %q shows %q", err, tc.notWant)
			}
			if n := len(srv.messages()); n != 0 {
				t.Errorf("server accepted %d messages, want none", n)
			}
		})
	}
}

func certPoolFor(cert tls.Certificate) (tls.Certificate, *x509.CertPool) {
	p := x509.NewCertPool()
	p.AddCert(cert.Leaf)
	return cert, p
}

func TestEmailRetriesTemporaryReply(t *testing.T) {
	t.Parallel()
	srv := &smtpServer{busyRcpts: 1}
	srv.start(t)
	c := emailConfig(srv)
	c.To = c.To[:1]
	ch, err := NewEmail("finance-mail", c)
	if err != nil {
		t.Fatal(err)
	}
	var attempts []Attempt
	err = Deliver(context.Background(), ch, reportMessage(), Policy{}, func(a Attempt) { attempts = append(attempts, a) }, noSleep)
	if err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	if len(attempts) != 2 || !strings.Contains(attempts[0].Err, "451") || attempts[0].Final || attempts[1].Err != "" || !attempts[1].Final {
		t.Fatalf("attempts = %+v, want a 451 then a success", attempts)
	}
	if attempts[0].ID != attempts[1].ID {
		t.Errorf("retry changed the delivery ID: %q then %q", attempts[0].ID, attempts[1].ID)
	}
	if n := len(srv.messages()); n != 1 {
		t.Errorf("server received %d messages, want 1", n)
	}
}

// silentListener accepts connections and never says a word, like a
// firewall that swallows packets after the handshake.
func silentListener(t *testing.T) (host string, port int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	return "127.0.0.1", l.Addr().(*net.TCPAddr).Port
}

func TestEmailUnresponsiveServer(t *testing.T) {
	t.Parallel()
	t.Run("timeout fires", func(t *testing.T) {
		t.Parallel()
		host, port := silentListener(t)
		ch, err := NewEmail("finance-mail", SMTPConfig{Host: host, Port: port, TLS: "none", From: "reports@example.com", To: []string{"ada@example.com"}, Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = ch.Send(context.Background(), Message{ID: "x", Subject: "s", Text: "t"})
		if err == nil || IsPermanent(err) {
			t.Fatalf("Send = %v, want a transient error", err)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("Send took %s with a 300ms timeout", took)
		}
	})
	t.Run("context cancellation stops the session", func(t *testing.T) {
		t.Parallel()
		host, port := silentListener(t)
		ch, err := NewEmail("finance-mail", SMTPConfig{Host: host, Port: port, TLS: "none", From: "reports@example.com", To: []string{"ada@example.com"}, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		err = ch.Send(ctx, Message{ID: "x", Subject: "s", Text: "t"})
		if err == nil {
			t.Fatal("Send succeeded against a silent server")
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("Send took %s after its context ended at 200ms", took)
		}
	})
	t.Run("connection refused is transient", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		ch, err := NewEmail("finance-mail", SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none", From: "reports@example.com", To: []string{"ada@example.com"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := ch.Send(context.Background(), Message{ID: "x", Subject: "s", Text: "t"}); err == nil || IsPermanent(err) {
			t.Fatalf("Send = %v, want a transient error", err)
		}
	})
}

func TestTestSendsOneEmail(t *testing.T) {
	t.Parallel()
	srv := &smtpServer{}
	srv.start(t)
	ch, err := NewEmail("finance-mail", emailConfig(srv))
	if err != nil {
		t.Fatal(err)
	}
	if err := Test(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
	got := srv.messages()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	msg, err := mail.ReadMessage(bytes.NewReader(got[0].data))
	if err != nil {
		t.Fatal(err)
	}
	if s := msg.Header.Get("Subject"); s != "flopledger test message" {
		t.Errorf("Subject = %q", s)
	}
}
