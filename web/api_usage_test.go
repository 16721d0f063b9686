package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type ingestBody struct {
	Accepted, Duplicates int
	Rejected             []struct {
		Index int
		ID    string
		Field string
		Error string
	}
}

func TestIngestFormats(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rec := func(id string) string {
		return fmt.Sprintf(`{"id": %q, "occurred_at": "2026-10-01T00:00:00Z", "workload": "w", "model": "gpt2", "input_tokens": 10, "output_tokens": 5}`, id)
	}
	cases := []struct {
		name, ctype, body string
		accepted          int
		rejected          map[int]string // index → field
	}{
		{"json array", "application/json", "[" + rec("a1") + "," + rec("a2") + "]", 2, nil},
		{"single object", "application/json", rec("b1"), 1, nil},
		{"ndjson with a bad line", "application/x-ndjson", rec("c1") + "\n\n{oops\n" + rec("c2") + "\n", 2, map[int]string{1: ""}},
		{"fraction in a count", "application/json", `[` + strings.Replace(rec("d1"), `"input_tokens": 10`, `"input_tokens": 1.5`, 1) + `,` + rec("d2") + `]`, 1, map[int]string{0: "input_tokens"}},
		{"cloudevents", "application/cloudevents-batch+json", `[{"specversion": "1.0", "id": "e1", "source": "gateway", "type": "usage", "data": ` + rec("ignored") + `},
			{"specversion": "1.0", "id": "e2", "type": "usage", "data": ` + rec("x") + `}]`, 1, map[int]string{1: "source"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(api, "POST", "/v1/usage", tc.body, "Content-Type", tc.ctype)
			var b ingestBody
			if err := json.Unmarshal(w.Body.Bytes(), &b); w.Code != 200 || err != nil {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if b.Accepted != tc.accepted || len(b.Rejected) != len(tc.rejected) {
				t.Fatalf("%s", w.Body)
			}
			for _, r := range b.Rejected {
				if f, ok := tc.rejected[r.Index]; !ok || f != r.Field || r.Error == "" {
					t.Fatalf("unexpected rejection %+v in %s", r, w.Body)
				}
			}
		})
	}
	// The CloudEvent's id is source + id: sending it again is a duplicate.
	w := do(api, "POST", "/v1/usage", `[{"specversion": "1.0", "id": "e1", "source": "gateway", "type": "usage", "data": `+rec("other")+`}]`, "Content-Type", "application/cloudevents-batch+json")
	if !strings.Contains(w.Body.String(), `"duplicates":1`) {
		t.Fatalf("replayed CloudEvent: %s", w.Body)
	}
}

func TestIngestLimitsAndAtomic(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := do(api, "POST", "/v1/usage?atomic=true", `[{"id": "a", "occurred_at": "2026-10-01T00:00:00Z", "workload": "w", "model": "gpt2", "input_tokens": 10, "output_tokens": 5},
		{"id": "b", "occurred_at": "yesterday", "workload": "w", "model": "gpt2", "input_tokens": 10, "output_tokens": 5}]`)
	if w.Code != 422 || errorBody(t, w).Code != "batch_rejected" {
		t.Fatalf("atomic: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/usage?atomic=perhaps", `[]`); w.Code != 400 {
		t.Fatalf("bad atomic: %d", w.Code)
	}
	var many strings.Builder
	many.WriteString("[")
	for i := range DefaultMaxBatchRecords + 1 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString("{}")
	}
	many.WriteString("]")
	if w := do(api, "POST", "/v1/usage", many.String()); w.Code != 413 || !strings.Contains(w.Body.String(), "10000") {
		t.Fatalf("too many records: %d %s", w.Code, w.Body)
	}
	if w := do(api, "POST", "/v1/usage", "x", "Content-Type", "text/csv"); w.Code != 415 {
		t.Fatalf("csv to /v1/usage: %d", w.Code)
	}
}
