package deliver

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
)

// checkReportMail parses a received message with the standard library and
// compares every part with what was sent.
func checkReportMail(t *testing.T, data []byte, sent Message) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	h := msg.Header
	subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if err != nil || subject != sent.Subject {
		t.Errorf("Subject = %q (%v), want %q", subject, err, sent.Subject)
	}
	from, err := h.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "flopledger" || from[0].Address != "reports@example.com" {
		t.Errorf("From = %v (%v)", from, err)
	}
	to, err := h.AddressList("To")
	if err != nil || len(to) != 2 || to[0].Name != "Ada" || to[0].Address != "ada@example.com" || to[1].Address != "ops@example.org" {
		t.Errorf("To = %v (%v)", to, err)
	}
	if d, err := h.Date(); err != nil || !d.Equal(reportDate) {
		t.Errorf("Date = %q (%v), want %v", h.Get("Date"), err, reportDate)
	}
	if got, want := h.Get("Message-Id"), "<"+sent.ID+"@example.com>"; got != want {
		t.Errorf("Message-ID = %q, want %q", got, want)
	}
	if got := h.Get("Auto-Submitted"); got != "auto-generated" {
		t.Errorf("Auto-Submitted = %q", got)
	}
	var p mailParts
	p.walk(t, h.Get("Content-Type"), h.Get("Content-Transfer-Encoding"), "", msg.Body)
	wantShape := "multipart/mixed[multipart/alternative[text/plain text/html] text/csv]"
	if p.shape != wantShape {
		t.Errorf("MIME structure = %s, want %s", p.shape, wantShape)
	}
	// MIME text parts end lines with CRLF (RFC 2046, 4.1.1), so the text
	// arrives with CRLF; the base64 attachment keeps its bytes exactly.
	if want := strings.ReplaceAll(sent.Text, "\n", "\r\n"); p.text != want {
		t.Errorf("text part = %q, want %q", p.text, want)
	}
	if p.html != sent.HTML {
		t.Errorf("HTML part = %q, want %q", p.html, sent.HTML)
	}
	if len(sent.Attachments) > 0 {
		a := sent.Attachments[0]
		if !bytes.Equal(p.files[a.Name], a.Data) {
			t.Errorf("attachment %s = %q, want %q (have %v)", a.Name, p.files[a.Name], a.Data, p.fileNames())
		}
	}
}

// mailParts collects the leaves of a MIME tree and writes its shape.
type mailParts struct {
	shape      string
	text, html string
	files      map[string][]byte
}

func (p *mailParts) fileNames() []string {
	var n []string
	for k := range p.files {
		n = append(n, k)
	}
	return n
}

func (p *mailParts) walk(t *testing.T, contentType, encoding, disposition string, body io.Reader) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", contentType, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		p.shape += mt + "["
		mr := multipart.NewReader(body, params["boundary"])
		for i := 0; ; i++ {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				p.shape += " "
			}
			// NextPart decodes quoted-printable itself and then hides the
			// header; base64 is left to us.
			p.walk(t, part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part.Header.Get("Content-Disposition"), part)
		}
		p.shape += "]"
		return
	}
	p.shape += mt
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.EqualFold(encoding, "base64") {
		b, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(b)), ""))
		if err != nil {
			t.Fatal(err)
		}
	}
	if d, dp, err := mime.ParseMediaType(disposition); err == nil && d == "attachment" {
		if p.files == nil {
			p.files = map[string][]byte{}
		}
		p.files[dp["filename"]] = b
		return
	}
	switch mt {
	case "text/plain":
		p.text = string(b)
	case "text/html":
		p.html = string(b)
	}
}
