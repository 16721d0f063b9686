package web

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/flopledger/flopledger/usage"
)

// FuzzDecodeRecordFast: whenever the fast decoder accepts a record, it is
// exactly the record encoding/json's strict decoding gives. Its seeds run
// in make test; run it longer with go test -fuzz FuzzDecodeRecordFast ./web/.
func FuzzDecodeRecordFast(f *testing.F) {
	for _, seed := range []string{
		`{"id":"r1","occurred_at":"2026-10-01T10:00:00Z","workload":"w","model":"llama-3.1-8b","input_tokens":150,"cached_input_tokens":100,"output_tokens":300,"latency_ms":900,"tags":{"team":"care"}}`,
		` { "id" : "r2" , "occurred_at" : "2026-10-01T10:00:00.123+02:00" , "requests" : 97 , "ttft_ms" : 0 , "bloat_tokens" : 12 , "prompt" : "hi" } `,
		`{"id":"r3","tags":{},"input_tokens":-0,"output_tokens":9223372036854775807}`,
		`{"id":"dup","id":"dup2"}`,
		`{"tags":{"a":"1","a":"2"}}`,
		`{"ID":"case"}`,
		`{"id":"esc\"aped"}`,
		`{"input_tokens":1.0}`,
		`{"input_tokens":1e3}`,
		`{"input_tokens":01}`,
		`{"input_tokens":9223372036854775808}`,
		`{"latency_ms":null}`,
		`{"occurred_at":"2026-13-01T00:00:00Z"}`,
		`{"occurred_at":"not a time"}`,
		`{"id":"r"} {"id":"s"}`,
		`{"id":"r",}`,
		`{}`,
		`[]`,
		`{"unknown":1}`,
		`{"tags":{"k":1}}`,
		`{"prompt":"line\nbreak"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !utf8.Valid(raw) { // decodeRecord refuses it before either decoder
			return
		}
		fast, ok := decodeRecordFast(raw)
		if !ok {
			return
		}
		var want usage.Record
		if err := decodeStrict(raw, &want); err != nil {
			t.Fatalf("the fast decoder accepted %q, which encoding/json refuses: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%q:\nfast    %+v\nstrict  %+v", raw, fast, want)
		}
	})
}

// TestDecodeRecordFastTakesTheUsualRecord: the records clients send (and
// the benchmark's) take the fast path; anything unusual falls back.
func TestDecodeRecordFastTakesTheUsualRecord(t *testing.T) {
	t.Parallel()
	usual := `{"cached_input_tokens":0,"id":"bench-1-0","input_tokens":191,"latency_ms":2589,"model":"llama-3.1-8b","occurred_at":"2026-10-24T12:47:17Z","output_tokens":493,"tags":{"team":"care"},"workload":"support-chat"}`
	if _, ok := decodeRecordFast([]byte(usual)); !ok {
		t.Fatalf("the usual record fell back to encoding/json: %s", usual)
	}
	for _, odd := range []string{`{"ID":"x"}`, `{"id":"a\u0062"}`, `{"latency_ms":null}`, `{"input_tokens":1.5}`, `{"id":"x","id":"y"}`} {
		if _, ok := decodeRecordFast([]byte(odd)); ok {
			t.Errorf("%s took the fast path", odd)
		}
	}
}
