// Package usage owns the usage record: its type, its validation and its
// ingestion (validate, estimate, persist), idempotent on the client's id.
package usage

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flopledger/flopledger/estimator"
)

// Limits on a record's text fields, so that one bad client cannot bloat the
// tables or the reports.
const (
	MaxIDLength       = 256
	MaxNameLength     = 200 // workload and model
	MaxTags           = 32
	MaxTagKeyLength   = 64
	MaxTagValueLength = 256
	MaxPromptBytes    = 4 << 20
)

// Record is one request, or a bucket of Requests requests, as a client or an
// import reports it. Token meanings are MISSION.md's: InputTokens counts
// every prompt token, cached or not; CachedInputTokens is the part of them
// served from a prefix cache; OutputTokens counts generated tokens,
// reasoning included.
type Record struct {
	ID                string            `json:"id"`
	OccurredAt        time.Time         `json:"occurred_at"`
	Workload          string            `json:"workload"`
	Model             string            `json:"model"`
	InputTokens       int64             `json:"input_tokens"`
	CachedInputTokens int64             `json:"cached_input_tokens"`
	OutputTokens      int64             `json:"output_tokens"`
	Requests          int64             `json:"requests"` // 0 in input means 1
	LatencyMS         *int64            `json:"latency_ms,omitempty"`
	TTFTMS            *int64            `json:"ttft_ms,omitempty"`
	Tags              map[string]string `json:"tags,omitempty"`
	// Prompt is analysed for bloat at ingest and then discarded; it is
	// never stored. At most one of Prompt and BloatTokens is given.
	Prompt      *string `json:"prompt,omitempty"`
	BloatTokens *int64  `json:"bloat_tokens,omitempty"`
}

// Normalized returns r with defaults applied: Requests 0 becomes 1, and
// OccurredAt is in UTC.
func (r Record) Normalized() Record {
	if r.Requests == 0 {
		r.Requests = 1
	}
	r.OccurredAt = r.OccurredAt.UTC()
	return r
}

// Validate reports every problem with the record at once, with JSON field
// names. It does not check that the model is known: a record of an unknown
// model is kept and priced once the model is registered.
func (r Record) Validate() error {
	var ps []estimator.Problem
	add := func(f, format string, a ...any) {
		ps = append(ps, estimator.Problem{Field: f, Message: fmt.Sprintf(format, a...)})
	}
	text := func(field, v string, limit int, required bool) {
		switch {
		case v == "" && required:
			add(field, "is required")
		case len(v) > limit:
			add(field, "is %d bytes; the limit is %d", len(v), limit)
		case !utf8.ValidString(v):
			add(field, "is not valid UTF-8")
		case strings.ContainsFunc(v, func(c rune) bool { return c < 0x20 || c == 0x7f }):
			add(field, "must not contain control characters")
		}
	}
	text("id", r.ID, MaxIDLength, true)
	text("workload", r.Workload, MaxNameLength, true)
	text("model", r.Model, MaxNameLength, true)
	if r.OccurredAt.IsZero() {
		add("occurred_at", "is required (RFC 3339, e.g. 2026-10-01T12:00:00Z)")
	} else if y := r.OccurredAt.UTC().Year(); y < 2000 || y > 2200 {
		add("occurred_at", "year %d is out of range (2000–2200)", y)
	}
	if r.Requests < 0 {
		add("requests", "must be at least 1")
	}
	if err := r.shape().Validate(); err != nil {
		ps = append(ps, estimator.Nest("", err)...)
	}
	for _, f := range []struct {
		name string
		v    *int64
	}{{"latency_ms", r.LatencyMS}, {"ttft_ms", r.TTFTMS}, {"bloat_tokens", r.BloatTokens}} {
		if f.v != nil && *f.v < 0 {
			add(f.name, "must not be negative")
		}
	}
	if r.BloatTokens != nil && *r.BloatTokens > r.InputTokens {
		add("bloat_tokens", "(%d) must not exceed input_tokens (%d)", *r.BloatTokens, r.InputTokens)
	}
	if r.Prompt != nil && r.BloatTokens != nil {
		add("prompt", "give a prompt or bloat_tokens, not both")
	}
	if r.Prompt != nil && len(*r.Prompt) > MaxPromptBytes {
		add("prompt", "is %d bytes; the limit is %d", len(*r.Prompt), MaxPromptBytes)
	}
	if len(r.Tags) > MaxTags {
		add("tags", "has %d tags; the limit is %d", len(r.Tags), MaxTags)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Tags)) { // a stable order of problems
		text("tags."+k, k, MaxTagKeyLength, true)
		text("tags."+k, r.Tags[k], MaxTagValueLength, false)
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

// shape is the traffic of the record as the estimator takes it.
func (r Record) shape() estimator.Request {
	return estimator.Request{InputTokens: r.InputTokens, CachedInputTokens: r.CachedInputTokens, OutputTokens: r.OutputTokens, Requests: r.Requests}
}
