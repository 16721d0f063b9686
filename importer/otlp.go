package importer

// Format otlp: OpenTelemetry spans in OTLP/JSON (the OTLP specification's
// JSON encoding of ExportTraceServiceRequest: {"resourceSpans":[{"resource":
// {"attributes"},"scopeSpans":[{"spans":[…]}]}]}; int64 values, times
// included, are decimal strings, traceId and spanId hex strings). Read
// accepts one document, a JSON array of them, or NDJSON with a document a
// line, as the Collector's file exporter writes.
//
// Attributes follow the OpenTelemetry GenAI semantic conventions, span
// gen_ai.client.inference (open-telemetry/semantic-conventions-genai,
// docs/gen-ai/client-inference.md; formerly docs/gen-ai/gen-ai-spans.md in
// open-telemetry/semantic-conventions). Each span with token counts becomes
// one request:
//
//	gen_ai.usage.input_tokens            → input_tokens. The convention: "This
//	                                       value SHOULD include all types of
//	                                       input tokens, including cached
//	                                       tokens" — MISSION.md's meaning, so
//	                                       nothing is added.
//	gen_ai.usage.cache_read.input_tokens → cached_input_tokens ("The value
//	                                       SHOULD be included in
//	                                       gen_ai.usage.input_tokens")
//	gen_ai.usage.output_tokens           → output_tokens (reasoning tokens are
//	                                       included, per
//	                                       gen_ai.usage.reasoning.output_tokens)
//	gen_ai.response.model, else gen_ai.request.model → model
//	startTimeUnixNano                    → occurred_at
//	endTimeUnixNano − startTimeUnixNano  → latency_ms
//	gen_ai.response.time_to_first_chunk  → ttft_ms (seconds in the convention)
//	traceId + "-" + spanId               → id
//
// gen_ai.usage.cache_write.input_tokens (earlier cache_creation) is part of
// input_tokens too, and not cached, so it needs nothing. The deprecated
// gen_ai.usage.prompt_tokens and gen_ai.usage.completion_tokens are read
// when the current names are absent. An instrumentation that reports
// Anthropic's input_tokens as is (cache reads excluded) breaks the
// convention; when that makes cache reads exceed input, the span is a bad
// item saying so, rather than a guess.
//
// A span without token counts is skipped, not an error. So is a span whose
// gen_ai.operation.name is invoke_agent, create_agent, invoke_workflow or
// execute_tool: agent spans may carry the token totals of the inference
// spans under them, and counting both would count the tokens twice.
//
// Workload and tag fields are attribute keys, looked up on the span and
// then on its resource. Default workload service.name (a resource
// attribute); default tags gen_ai.operation.name, gen_ai.provider.name and
// gen_ai.system (the provider attribute's older name).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/flopledger/flopledger/usage"
)

var otlpTags = []string{"gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.system"}

// otlpAggregates are operations whose spans wrap inference spans.
var otlpAggregates = map[string]bool{"invoke_agent": true, "create_agent": true, "invoke_workflow": true, "execute_tool": true}

type otlpDoc struct {
	ResourceSpans []struct {
		Resource   json.RawMessage `json:"resource"`
		ScopeSpans []struct {
			Spans []json.RawMessage `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type otlpResource struct {
	Attributes []otlpKV `json:"attributes"`
}

type otlpSpan struct {
	TraceID           string          `json:"traceId"`
	SpanID            string          `json:"spanId"`
	StartTimeUnixNano json.RawMessage `json:"startTimeUnixNano"`
	EndTimeUnixNano   json.RawMessage `json:"endTimeUnixNano"`
	Attributes        []otlpKV        `json:"attributes"`
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

// otlpValue is an AnyValue. Integers are strings in OTLP/JSON, numbers
// from lenient writers; doubles may be "NaN" or "Infinity" strings.
type otlpValue struct {
	StringValue *string         `json:"stringValue"`
	IntValue    json.RawMessage `json:"intValue"`
	DoubleValue json.RawMessage `json:"doubleValue"`
	BoolValue   *bool           `json:"boolValue"`
}

func readOTLP(r io.Reader, e *emitter) error {
	spans := 0
	return jsonValues(r, "document", MaxValueBytes, func(raw []byte, pos string, err error) error {
		if err != nil {
			return e.fail(pos, err)
		}
		var doc otlpDoc
		if err := json.Unmarshal(raw, &doc); err != nil {
			return e.fail(pos, jsonError(err, nil))
		}
		for i, rs := range doc.ResourceSpans {
			var res otlpResource
			if len(rs.Resource) > 0 {
				if err := json.Unmarshal(rs.Resource, &res); err != nil {
					if err := e.fail(fmt.Sprintf("%s resourceSpans[%d].resource", pos, i), jsonError(err, nil)); err != nil {
						return err
					}
					continue
				}
			}
			resAttrs := attrMap(res.Attributes)
			for j, ss := range rs.ScopeSpans {
				for k, sp := range ss.Spans {
					spans++
					spos := fmt.Sprintf("%s span %d (resourceSpans[%d].scopeSpans[%d].spans[%d])", pos, spans, i, j, k)
					if err := e.otlpSpan(spos, sp, resAttrs); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

func attrMap(kvs []otlpKV) map[string]otlpValue {
	m := make(map[string]otlpValue, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func (e *emitter) otlpSpan(pos string, raw json.RawMessage, resAttrs map[string]otlpValue) error {
	var sp otlpSpan
	if err := json.Unmarshal(raw, &sp); err != nil {
		return e.fail(pos, jsonError(err, nil))
	}
	attrs := attrMap(sp.Attributes)
	get := func(key string) string {
		if v, ok := attrs[key]; ok {
			return v.text()
		}
		return resAttrs[key].text()
	}
	// count reads the first of keys present; ok is false when none is.
	count := func(keys ...string) (int64, bool, error) {
		for _, k := range keys {
			if v, ok := attrs[k]; ok {
				n, err := v.int()
				if err != nil {
					return 0, true, fmt.Errorf("attribute %s: %w", k, err)
				}
				return n, true, nil
			}
		}
		return 0, false, nil
	}
	input, hasIn, err1 := count("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
	output, hasOut, err2 := count("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
	cached, _, err3 := count("gen_ai.usage.cache_read.input_tokens")
	op := get("gen_ai.operation.name")
	switch {
	case !hasIn && !hasOut:
		return e.skip(pos, "no gen_ai.usage token attributes")
	case otlpAggregates[op]:
		return e.skip(pos, fmt.Sprintf("operation %s aggregates the inference spans under it", op))
	}
	if err := errors.Join(err1, err2, err3); err != nil {
		return e.fail(pos, err)
	}
	if !hasIn {
		return e.failf(pos, "gen_ai.usage.output_tokens is set but gen_ai.usage.input_tokens is missing")
	}
	if cached > input {
		return e.failf(pos, "gen_ai.usage.cache_read.input_tokens (%d) exceeds gen_ai.usage.input_tokens (%d); the GenAI conventions count cached tokens inside input_tokens, and this instrumentation seems not to", cached, input)
	}
	if sp.TraceID == "" || sp.SpanID == "" {
		return e.failf(pos, "traceId or spanId is missing")
	}
	start, err := unixNano(sp.StartTimeUnixNano)
	if err != nil {
		return e.failf(pos, "startTimeUnixNano: %v", err)
	}
	rec := usage.Record{
		ID:                sp.TraceID + "-" + sp.SpanID,
		OccurredAt:        time.Unix(0, start).UTC(),
		Model:             get("gen_ai.response.model"),
		InputTokens:       input,
		CachedInputTokens: cached,
		OutputTokens:      output,
		Requests:          1,
	}
	if rec.Model == "" {
		rec.Model = get("gen_ai.request.model")
	}
	if rec.Model == "" {
		return e.failf(pos, "neither gen_ai.response.model nor gen_ai.request.model is set")
	}
	if end, err := unixNano(sp.EndTimeUnixNano); err != nil {
		return e.failf(pos, "endTimeUnixNano: %v", err)
	} else if end != 0 && start != 0 {
		if end < start {
			return e.failf(pos, "endTimeUnixNano is before startTimeUnixNano")
		}
		ms := (end - start + 500_000) / 1_000_000 // nearest millisecond
		rec.LatencyMS = &ms
	}
	if v, ok := attrs["gen_ai.response.time_to_first_chunk"]; ok {
		s, err := v.float()
		if err != nil || math.IsNaN(s) || math.IsInf(s, 0) || math.Abs(s) > 1e12 {
			return e.failf(pos, "attribute gen_ai.response.time_to_first_chunk: want seconds, got %s", v.text())
		}
		ms := int64(math.Round(s * 1000))
		rec.TTFTMS = &ms
	}
	return e.record(pos, rec, get)
}

// unixNano reads a fixed64 time: a decimal string in OTLP/JSON, or a
// number. Absent is 0.
func unixNano(raw json.RawMessage) (int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	n, err := strconv.ParseUint(unquote(raw), 10, 64)
	if err != nil || n > math.MaxInt64 {
		return 0, fmt.Errorf("%s is not nanoseconds since 1970", clip(raw))
	}
	return int64(n), nil
}

// text renders a scalar value for a workload or tag; other kinds give "".
func (v otlpValue) text() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	case len(v.IntValue) > 0:
		return unquote(v.IntValue)
	case len(v.DoubleValue) > 0:
		return unquote(v.DoubleValue)
	}
	return ""
}

// int reads a token count: an intValue, or a doubleValue holding a whole
// number (some SDKs send every number as a double).
func (v otlpValue) int() (int64, error) {
	switch {
	case len(v.IntValue) > 0:
		n, err := strconv.ParseInt(unquote(v.IntValue), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("intValue %s is not an integer", clip(v.IntValue))
		}
		return n, nil
	case len(v.DoubleValue) > 0:
		f, err := v.float()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, fmt.Errorf("doubleValue %s is not a whole number", clip(v.DoubleValue))
		}
		return int64(f), nil
	case v.StringValue != nil:
		n, err := strconv.ParseInt(*v.StringValue, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stringValue %q is not an integer", *v.StringValue)
		}
		return n, nil
	}
	return 0, errors.New("want an intValue")
}

func (v otlpValue) float() (float64, error) {
	raw := v.DoubleValue
	if len(raw) == 0 {
		raw = v.IntValue
	}
	return strconv.ParseFloat(unquote(raw), 64)
}

// unquote returns a JSON string's text, or a JSON number as written.
func unquote(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
