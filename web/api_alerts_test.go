package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAlertLifecycle: a whitespace-bloat episode on 15 October opens one
// alert when evaluated on the 16th; it is acknowledged, then resolved.
func TestAlertLifecycle(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	var nd strings.Builder
	for i := range 25 { // 25 records of 100 prompt tokens, 10 of them redundant whitespace: 10%
		fmt.Fprintf(&nd, `{"id": "b%d", "occurred_at": "2026-10-15T%02d:00:00Z", "workload": "support-chat", "model": "llama-3.1-8b", "input_tokens": 100, "output_tokens": 50, "bloat_tokens": 10}`+"\n", i, i%24)
	}
	mustStatus(t, do(api, "POST", "/v1/usage", nd.String(), "Content-Type", "application/x-ndjson"), 200, "usage")
	w := do(api, "POST", "/v1/alerts/evaluate", "")
	var ev struct {
		Opened []struct {
			ID       int64
			Kind     string
			Workload string
			Sentence string
			Fix      string
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &ev); w.Code != 200 || err != nil || len(ev.Opened) != 1 {
		t.Fatalf("evaluate: %d %s", w.Code, w.Body)
	}
	a := ev.Opened[0]
	if a.Kind != "whitespace_bloat" || a.Workload != "support-chat" || !strings.Contains(a.Sentence, "10") || a.Fix == "" {
		t.Fatalf("alert %+v", a)
	}
	if w := do(api, "POST", "/v1/alerts/evaluate", ""); !strings.Contains(w.Body.String(), `"opened":[]`) {
		t.Fatalf("a second evaluation must not repeat the alert: %s", w.Body)
	}
	id := fmt.Sprint(a.ID)
	if w := do(api, "GET", "/v1/alerts?state=open&workload=support-chat", ""); !strings.Contains(w.Body.String(), `"id":`+id) {
		t.Fatalf("list: %s", w.Body)
	}
	if w := do(api, "POST", "/v1/alerts/"+id+"/ack", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `"state":"acknowledged"`) {
		t.Fatalf("ack: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/alerts/"+id+"/ack", ""); w.Code != 409 {
		t.Fatalf("ack twice: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/alerts/"+id+"/resolve", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `"state":"resolved"`) {
		t.Fatalf("resolve: %d %s", w.Code, w.Body)
	}
	if w := do(api, "GET", "/v1/alerts/99999", ""); w.Code != 404 {
		t.Fatalf("unknown alert: %d", w.Code)
	}
	if w := do(api, "GET", "/v1/alerts?state=sleeping", ""); w.Code != 422 {
		t.Fatalf("bad state filter: %d %s", w.Code, w.Body)
	}
}
