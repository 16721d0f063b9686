package deliver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// selfSigned makes a certificate for 127.0.0.1 and localhost, and a pool
// that trusts it, as a private CA would be trusted in production.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "flopledger test smtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// smtpServer is a real SMTP server (emersion/go-smtp) on 127.0.0.1 that
// keeps what it receives.
type smtpServer struct {
	host string
	port int
	// Settings, fixed before start.
	user, pass  string      // AUTH required when user is set
	refuse      string      // RCPT TO this address gets 550
	busyRcpts   int         // the first busyRcpts RCPT commands get 451
	echoAuthErr bool        // a failed AUTH's reply repeats the password
	tlsConfig   *tls.Config // STARTTLS offered when set
	implicitTLS bool        // the listener speaks TLS from the first byte

	mu        sync.Mutex // guards what follows
	got       []received // accepted messages
	rcptCalls int        // RCPT commands seen
}

type received struct {
	from  string
	rcpts []string
	data  []byte
	tls   bool
	user  string
}

func (s *smtpServer) start(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if s.implicitTLS {
		l = tls.NewListener(l, s.tlsConfig)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &smtpSession{s: s, c: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	if !s.implicitTLS {
		srv.TLSConfig = s.tlsConfig
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	s.host = "127.0.0.1"
	s.port = l.Addr().(*net.TCPAddr).Port
}

func (s *smtpServer) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

type smtpSession struct {
	s     *smtpServer
	c     *smtp.Conn
	user  string
	from  string
	rcpts []string
}

func (ss *smtpSession) AuthMechanisms() []string {
	if ss.s.user == "" {
		return nil
	}
	return []string{sasl.Plain, sasl.Login}
}

func (ss *smtpSession) Auth(mech string) (sasl.Server, error) {
	check := func(user, pass string) error {
		if user != ss.s.user || pass != ss.s.pass {
			msg := "Authentication failed"
			if ss.s.echoAuthErr {
				msg += " for password " + pass
			}
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: msg}
		}
		ss.user = user
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, user, pass string) error { return check(user, pass) }), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.user != "" && ss.user == "" {
		return smtp.ErrAuthRequired
	}
	ss.from = from
	return nil
}

func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.s.mu.Lock()
	ss.s.rcptCalls++
	busy := ss.s.rcptCalls <= ss.s.busyRcpts
	ss.s.mu.Unlock()
	if busy {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	if to == ss.s.refuse {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	ss.rcpts = append(ss.rcpts, to)
	return nil
}

func (ss *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := ss.c.TLSConnectionState()
	ss.s.mu.Lock()
	ss.s.got = append(ss.s.got, received{from: ss.from, rcpts: ss.rcpts, data: b, tls: isTLS, user: ss.user})
	ss.s.mu.Unlock()
	return nil
}

func (ss *smtpSession) Reset()        { ss.from, ss.rcpts = "", nil }
func (ss *smtpSession) Logout() error { return nil }

// loginServer is the server side of AUTH LOGIN, which go-sasl does not
// provide: ask for the user name, then the password.
type loginServer struct {
	check func(user, pass string) error
	step  int
	user  string
}

func (l *loginServer) Next(resp []byte) ([]byte, bool, error) {
	l.step++
	switch l.step {
	case 1:
		if resp != nil { // sent as an initial response
			l.user = string(resp)
			l.step++
			return []byte("Password:"), false, nil
		}
		return []byte("Username:"), false, nil
	case 2:
		l.user = string(resp)
		return []byte("Password:"), false, nil
	case 3:
		return nil, true, l.check(l.user, string(resp))
	}
	return nil, false, errors.New("unexpected LOGIN step " + strconv.Itoa(l.step))
}
