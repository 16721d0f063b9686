package deliver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

const testSecret = "whsec-0123456789abcdef"

type response struct {
	status int
	header map[string]string
	body   string
}

// receiver is a real HTTP webhook receiver that checks every request the
// way the package doc tells receivers to, then answers from a script (the
// last answer repeats).
type receiver struct {
	t         *testing.T
	sigHeader string     // default X-Flopledger-Signature
	script    []response // answers in order
	hang      bool       // never answer; wait for the client to give up
	url       string

	mu   sync.Mutex
	reqs []gotRequest
}

type gotRequest struct {
	header http.Header
	body   []byte
	fields map[string]any
}

func (rv *receiver) start() *receiver {
	rv.t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(rv.serve))
	rv.t.Cleanup(srv.Close)
	rv.url = srv.URL + "/hooks/flopledger"
	return rv
}

func (rv *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rv.t.Errorf("reading body: %v", err)
		return
	}
	if problem := rv.verify(r, body); problem != "" {
		rv.t.Errorf("receiver rejected the request: %s", problem)
		http.Error(w, problem, http.StatusBadRequest)
		return
	}
	var fields map[string]any
	if err := json.Unmarshal(body, &fields); err != nil {
		rv.t.Errorf("body is not a JSON object: %v", err)
	}
	if text, ok := fields["text"].(string); !ok || text == "" {
		rv.t.Errorf(`body has no top-level "text" string: %s`, body)
		http.Error(w, "no_text", http.StatusBadRequest) // as Slack answers
		return
	}
	rv.mu.Lock()
	n := len(rv.reqs)
	rv.reqs = append(rv.reqs, gotRequest{header: r.Header.Clone(), body: body, fields: fields})
	rv.mu.Unlock()
	if rv.hang {
		<-r.Context().Done()
		return
	}
	a := rv.script[min(n, len(rv.script)-1)]
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

// verify follows the package doc's recipe literally, without calling Verify.
func (rv *receiver) verify(r *http.Request, body []byte) string {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("User-Agent") != "flopledger" {
		return fmt.Sprintf("method %s, Content-Type %q, User-Agent %q", r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"))
	}
	ts := r.Header.Get("X-Flopledger-Timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "bad timestamp " + ts
	}
	if d := time.Since(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "stale timestamp " + ts
	}
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write([]byte(ts + "." + string(body)))
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	header := rv.sigHeader
	if header == "" {
		header = "X-Flopledger-Signature"
	}
	if !hmac.Equal([]byte(r.Header.Get(header)), []byte(want)) {
		return "signature mismatch"
	}
	if r.Header.Get("X-Flopledger-Delivery") == "" {
		return "no delivery ID"
	}
	return ""
}

func (rv *receiver) requests() []gotRequest {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return append([]gotRequest(nil), rv.reqs...)
}

func newHook(t *testing.T, url string, edit func(*WebhookConfig)) Channel {
	t.Helper()
	c := WebhookConfig{URL: url, Secret: testSecret, Timeout: 5 * time.Second}
	if edit != nil {
		edit(&c)
	}
	ch, err := NewWebhook("ops-slack", c)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func alertMessage() Message {
	return Message{
		Subject: "Budget alert",
		Text:    "support-chat used 92% of its October FLOPs budget",
		Webhook: struct {
			Kind     string `json:"kind"`
			Workload string `json:"workload"`
			Percent  int    `json:"percent"`
		}{"budget", "support-chat", 92},
	}
}
