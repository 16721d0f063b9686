package web

import (
	"strconv"

	"github.com/flopledger/flopledger/usage"
)

// decodeRecordFast reads the usual shape of a usage record — one object,
// known field names spelt exactly, each once, strings without escapes,
// integers without fraction or exponent, no nulls — without reflection.
// Anything else returns ok == false and the caller decodes the record with
// encoding/json, whose result and error messages stay the reference: when
// ok is true the record is exactly what decodeStrict gives (checked by
// FuzzDecodeRecordFast). encoding/json was a third of the ingest's CPU.
func decodeRecordFast(b []byte) (r usage.Record, ok bool) {
	s := scanner{b: b}
	s.space()
	if !s.consume('{') {
		return r, false
	}
	var seen uint16
	s.space()
	if s.consume('}') {
		return r, s.end()
	}
	for {
		s.space()
		name, ok := s.plainString()
		if !ok {
			return r, false
		}
		s.space()
		if !s.consume(':') {
			return r, false
		}
		s.space()
		bit, ok := s.field(name, &r)
		if !ok || seen&bit != 0 {
			return r, false
		}
		seen |= bit
		s.space()
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			return r, s.end()
		}
		return r, false
	}
}

// field reads the value of the field called name into r and returns the
// field's bit, for the check that no field comes twice.
func (s *scanner) field(name string, r *usage.Record) (uint16, bool) {
	switch name {
	case "id":
		v, ok := s.plainString()
		r.ID = v
		return 1 << 0, ok
	case "occurred_at":
		start := s.i
		if _, ok := s.plainString(); !ok {
			return 0, false
		}
		// encoding/json hands the quoted value to time.Time's own decoder.
		return 1 << 1, r.OccurredAt.UnmarshalJSON(s.b[start:s.i]) == nil
	case "workload":
		v, ok := s.plainString()
		r.Workload = v
		return 1 << 2, ok
	case "model":
		v, ok := s.plainString()
		r.Model = v
		return 1 << 3, ok
	case "input_tokens":
		v, ok := s.integer()
		r.InputTokens = v
		return 1 << 4, ok
	case "cached_input_tokens":
		v, ok := s.integer()
		r.CachedInputTokens = v
		return 1 << 5, ok
	case "output_tokens":
		v, ok := s.integer()
		r.OutputTokens = v
		return 1 << 6, ok
	case "requests":
		v, ok := s.integer()
		r.Requests = v
		return 1 << 7, ok
	case "latency_ms":
		v, ok := s.integer()
		r.LatencyMS = &v
		return 1 << 8, ok
	case "ttft_ms":
		v, ok := s.integer()
		r.TTFTMS = &v
		return 1 << 9, ok
	case "bloat_tokens":
		v, ok := s.integer()
		r.BloatTokens = &v
		return 1 << 10, ok
	case "prompt":
		v, ok := s.plainString()
		r.Prompt = &v
		return 1 << 11, ok
	case "tags":
		tags, ok := s.stringMap()
		r.Tags = tags
		return 1 << 12, ok
	}
	return 0, false
}

// scanner walks one JSON text. Each method returns false for anything it
// does not handle, valid JSON or not; the caller then falls back.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

// plainString reads a string with no escape and no control character (the
// caller has checked that the text is valid UTF-8).
func (s *scanner) plainString() (string, bool) {
	if !s.consume('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			v := string(s.b[start:s.i])
			s.i++
			return v, true
		case c == '\\' || c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// integer reads -?(0|[1-9][0-9]*) that fits in an int64 and is followed by
// a delimiter; a fraction or an exponent is left to encoding/json.
func (s *scanner) integer() (int64, bool) {
	start := s.i
	s.consume('-')
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || (s.b[digits] == '0' && s.i-digits > 1) {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ' ', '\t', '\n', '\r':
		default:
			return 0, false
		}
	}
	v, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	return v, err == nil
}

// stringMap reads an object of plain strings. A key given twice keeps its
// last value, as encoding/json does.
func (s *scanner) stringMap() (map[string]string, bool) {
	if !s.consume('{') {
		return nil, false
	}
	m := map[string]string{}
	s.space()
	if s.consume('}') {
		return m, true
	}
	for {
		s.space()
		k, ok := s.plainString()
		if !ok {
			return nil, false
		}
		s.space()
		if !s.consume(':') {
			return nil, false
		}
		s.space()
		v, ok := s.plainString()
		if !ok {
			return nil, false
		}
		m[k] = v
		s.space()
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			return m, true
		}
		return nil, false
	}
}
