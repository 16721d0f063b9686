package importer

// Format ndjson: our own usage records, one JSON object a line, with the
// JSON field names of usage.Record (usage/record.go) and the token meanings
// of MISSION.md ("Tokens in a usage record"), so nothing is converted.
// A field that usage.Record does not have is an error naming the field: a
// misspelt "cached_tokens" would otherwise import silently as zero cached
// tokens. Blank lines are ignored. Options.Workload may be "workload" (the
// default), "model" or "tag:NAME"; an empty workload gets
// Options.DefaultWorkload.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flopledger/flopledger/usage"
)

func readNDJSON(r io.Reader, e *emitter) error {
	ls := &lines{br: bufio.NewReaderSize(r, readChunk), max: MaxValueBytes}
	for {
		line, tooLong, err := ls.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ls.n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		pos := fmt.Sprintf("line %d", ls.n)
		switch {
		case tooLong:
			err = e.fail(pos, errLineTooLong)
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			err = e.ownRecord(pos, line)
		}
		if err != nil {
			return err
		}
	}
}

// recordJSON decodes occurred_at itself, to name the field when the time
// is malformed (encoding/json's time error does not).
type recordJSON struct {
	usage.Record
	OccurredAt json.RawMessage `json:"occurred_at"`
}

// ownRecord decodes one of our records from JSON and reports it.
func (e *emitter) ownRecord(pos string, line []byte) error {
	// encoding/json would replace invalid UTF-8 with U+FFFD, and two broken
	// ids would then become one: refuse the line instead.
	if !utf8.Valid(line) {
		return e.failf(pos, "the line is not valid UTF-8")
	}
	var rj recordJSON
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rj); err != nil {
		return e.fail(pos, jsonError(err, recordFields))
	}
	if dec.More() {
		return e.failf(pos, "more than one JSON value on the line")
	}
	r := rj.Record
	if len(rj.OccurredAt) > 0 && string(rj.OccurredAt) != "null" {
		var s string
		if json.Unmarshal(rj.OccurredAt, &s) != nil {
			return e.failf(pos, "occurred_at: want an RFC 3339 time string, got %s", clip(rj.OccurredAt))
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return e.failf(pos, "occurred_at: %q is not an RFC 3339 time (e.g. 2026-10-01T12:00:00Z)", s)
		}
		r.OccurredAt = t
	}
	return e.ownFinish(pos, r)
}

// ownFinish applies the workload options to one of our records (which
// brings its own tags) and reports it.
func (e *emitter) ownFinish(pos string, r usage.Record) error {
	own := r.Workload
	get := func(f string) string {
		switch f {
		case "workload":
			return own
		case "model":
			return r.Model
		}
		return ""
	}
	return e.record(pos, r, get)
}

// recordFields are usage.Record's JSON names, for error messages.
var recordFields = []string{"id", "occurred_at", "workload", "model", "input_tokens", "cached_input_tokens",
	"output_tokens", "requests", "latency_ms", "ttft_ms", "tags", "prompt", "bloat_tokens"}

// jsonError rewrites encoding/json's errors to name the field in our
// terms; known lists the valid names for an unknown field.
func jsonError(err error, known []string) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("%s: want %s, got JSON %s", strings.TrimPrefix(te.Field, "Record."), typeName(te.Type), te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("want a JSON object, got JSON %s", te.Value)
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON (byte %d of the line): %s", se.Offset, se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return errors.New("not valid JSON: the value ends early")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok && known != nil {
		return fmt.Errorf("unknown field %s; the fields are %s", name, strings.Join(known, ", "))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// typeName says a Go type the way a JSON user reads it.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return t.String()
}

// clip shortens a source value quoted in an error message.
func clip(b []byte) string {
	const n = 40
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
