package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/flopledger/flopledger/deliver"
)

// mailbox is a real SMTP server (emersion/go-smtp) on 127.0.0.1 keeping
// the messages it receives.
type mailbox struct {
	mu   sync.Mutex
	msgs [][]byte
	port int
}

type mailSession struct{ box *mailbox }

func (s mailSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s mailSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s mailSession) Reset()                               {}
func (s mailSession) Logout() error                        { return nil }
func (s mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	s.box.mu.Lock()
	s.box.msgs = append(s.box.msgs, b)
	s.box.mu.Unlock()
	return err
}

func startMailbox(t *testing.T) *mailbox {
	t.Helper()
	box := &mailbox{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return mailSession{box}, nil }))
	srv.Domain = "localhost"
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	box.port = l.Addr().(*net.TCPAddr).Port
	return box
}

func (b *mailbox) messages() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]byte(nil), b.msgs...)
}

// hook is a real HTTP receiver that checks the webhook signature.
type hook struct {
	mu     sync.Mutex
	bodies [][]byte
	bad    int
}

const hookSecret = "0123456789abcdef-secret"

func startHook(t *testing.T) (*hook, string) {
	h := &hook{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		err := deliver.Verify(hookSecret, r.Header.Get("X-Flopledger-Timestamp"), r.Header.Get("X-Flopledger-Signature"), body, time.Now(), 5*time.Minute)
		h.mu.Lock()
		defer h.mu.Unlock()
		if err != nil {
			h.bad++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.bodies = append(h.bodies, body)
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func seedOctober(t *testing.T, api http.Handler) {
	t.Helper()
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01", "prices": {"default": {"input_per_mtok": "3", "output_per_mtok": "15"}}}`), 201, "plan")
	mustStatus(t, do(api, "POST", "/v1/plans", `{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.0001"}`), 201, "plan")
	var nd strings.Builder
	for i := range 30 {
		fmt.Fprintf(&nd, `{"id": "r%d", "occurred_at": "2026-10-%02dT09:00:00Z", "workload": "%s", "model": "llama-3.1-8b", "input_tokens": %d, "output_tokens": 300, "latency_ms": %d}`+"\n",
			i, 1+i%28, []string{"support-chat", "code-assistant", "rag-search"}[i%3], 150+i*1000*(i%3), 700+i)
	}
	mustStatus(t, do(api, "POST", "/v1/usage", nd.String(), "Content-Type", "application/x-ndjson"), 200, "usage")
}

// TestReportMadeAndDelivered makes October's report through the API, reads
// it in every format, sends it to a real SMTP server and a real webhook
// receiver, and reads the delivery log.
func TestReportMadeAndDelivered(t *testing.T) {
	t.Parallel()
	box := startMailbox(t)
	hk, hookURL := startHook(t)
	email, err := deliver.NewEmail("email", deliver.SMTPConfig{Host: "127.0.0.1", Port: box.port, TLS: "none", From: "flopledger@example.com", To: []string{"cfo@example.com"}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wh, err := deliver.NewWebhook("webhook", deliver.WebhookConfig{URL: hookURL, Secret: hookSecret, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	api := newAPIWith(t, []deliver.Channel{email, wh})
	seedOctober(t, api)

	w := do(api, "POST", "/v1/reports", `{"month": "2026-10"}`)
	var st struct {
		ID      int64
		Summary string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &st); w.Code != 201 || err != nil || st.ID == 0 {
		t.Fatalf("make: %d %s", w.Code, w.Body)
	}
	id := fmt.Sprint(st.ID)
	csv := do(api, "GET", "/v1/reports/"+id+".csv", "")
	if csv.Code != 200 || !strings.HasPrefix(csv.Body.String(), "workload,requests,input_tokens,cached_input_tokens,output_tokens,prefill_flops,decode_flops,request_cost,flops_cost,delta,delta_pct,budget,budget_used_pct,bloat_tokens") ||
		!strings.Contains(csv.Body.String(), "\nTOTAL,30,") || !strings.Contains(csv.Header().Get("Content-Disposition"), ".csv") {
		t.Fatalf("csv: %d %s", csv.Code, csv.Body)
	}
	html := do(api, "GET", "/v1/reports/"+id+".html", "")
	if html.Code != 200 || !strings.Contains(html.Body.String(), "October 2026") || strings.Contains(html.Body.String(), "<script") {
		t.Fatalf("html: %d", html.Code)
	}
	if w := do(api, "GET", "/v1/reports", ""); !strings.Contains(w.Body.String(), `"id":`+id) {
		t.Fatalf("list: %s", w.Body)
	}
	for _, path := range []string{"/v1/reports/999", "/v1/reports/abc", "/v1/reports/" + id + ".pdf"} {
		if w := do(api, "GET", path, ""); w.Code != 404 {
			t.Errorf("%s: %d", path, w.Code)
		}
	}
	if w := do(api, "POST", "/v1/reports", `{"month": "October"}`); w.Code != 422 || !detailsName(errorBody(t, w).Details, "month") {
		t.Fatalf("bad month: %d %s", w.Code, w.Body)
	}

	mustStatus(t, do(api, "POST", "/v1/reports/"+id+"/send", ""), 202, "send")
	deadline := time.Now().Add(15 * time.Second)
	var log struct {
		Deliveries []struct {
			Channel string
			OK      bool
			Final   bool
		}
	}
	for time.Now().Before(deadline) {
		_ = json.Unmarshal(do(api, "GET", "/v1/reports/"+id+"/deliveries", "").Body.Bytes(), &log)
		if len(log.Deliveries) == 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(log.Deliveries) != 2 || !log.Deliveries[0].OK || !log.Deliveries[1].OK || !log.Deliveries[0].Final {
		t.Fatalf("delivery log: %+v", log)
	}

	// The mail: HTML body, the CSV attached, byte for byte what the API serves.
	msgs := box.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d mails", len(msgs))
	}
	m, err := mail.ReadMessage(bytes.NewReader(msgs[0]))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if subject != "flopledger monthly report — October 2026 (by workload)" || m.Header.Get("To") != "<cfo@example.com>" {
		t.Fatalf("subject %q to %q", subject, m.Header.Get("To"))
	}
	parts := readParts(t, m.Header.Get("Content-Type"), m.Body)
	if !strings.Contains(parts["text/html"], "October 2026") || parts["text/csv"] != csv.Body.String() {
		t.Fatalf("mail parts: html %d bytes, csv %q", len(parts["text/html"]), parts["text/csv"])
	}

	// The webhook: signed (checked by the receiver), Slack text = the summary.
	hk.mu.Lock()
	defer hk.mu.Unlock()
	if len(hk.bodies) != 1 || hk.bad != 0 {
		t.Fatalf("webhook: %d good, %d badly signed", len(hk.bodies), hk.bad)
	}
	var payload struct {
		Text     string `json:"text"`
		ReportID int64  `json:"report_id"`
		Month    string `json:"month"`
	}
	if err := json.Unmarshal(hk.bodies[0], &payload); err != nil || payload.Text != st.Summary || payload.ReportID != st.ID || payload.Month != "2026-10" {
		t.Fatalf("payload %s", hk.bodies[0])
	}
}

// readParts walks a MIME tree and returns the decoded leaf parts by type.
func readParts(t *testing.T, ctype string, body io.Reader) map[string]string {
	t.Helper()
	out := map[string]string{}
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		b, _ := io.ReadAll(body)
		out[mt] = string(b)
		return out
	}
	r := multipart.NewReader(body, params["boundary"])
	for {
		p, err := r.NextPart() // decodes quoted-printable; base64 handled below
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var rd io.Reader = p
		if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "base64") {
			rd = base64Reader(p)
		}
		for k, v := range readParts(t, p.Header.Get("Content-Type"), rd) {
			out[k] = v
		}
	}
}

func TestChannelTest(t *testing.T) {
	t.Parallel()
	box := startMailbox(t)
	email, _ := deliver.NewEmail("email", deliver.SMTPConfig{Host: "127.0.0.1", Port: box.port, TLS: "none", From: "a@example.com", To: []string{"b@example.com"}, Timeout: 5 * time.Second})
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/hook"
	l.Close()
	wh, _ := deliver.NewWebhook("dead-hook", deliver.WebhookConfig{URL: dead, Secret: hookSecret, Timeout: time.Second})
	api := newAPIWith(t, []deliver.Channel{email, wh})
	if w := do(api, "GET", "/v1/channels", ""); !strings.Contains(w.Body.String(), `"name":"dead-hook","kind":"webhook"`) {
		t.Fatalf("channels: %s", w.Body)
	}
	if w := do(api, "POST", "/v1/channels/email/test", ""); w.Code != 200 || len(box.messages()) != 1 {
		t.Fatalf("test email: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/channels/dead-hook/test", ""); w.Code != 502 || errorBody(t, w).Code != "channel_failed" {
		t.Fatalf("dead hook: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/channels/nope/test", ""); w.Code != 404 {
		t.Fatalf("unknown channel: %d", w.Code)
	}
}

func base64Reader(r io.Reader) io.Reader { return base64.NewDecoder(base64.StdEncoding, r) }
