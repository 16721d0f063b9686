package importer

// Format litellm: LiteLLM proxy spend logs, rows of the LiteLLM_SpendLogs
// table as GET /spend/logs returns them (LiteLLM's SpendLogsPayload,
// litellm/proxy/_types.py, and schema.prisma; "Spend Tracking",
// docs.litellm.ai/docs/proxy/cost_tracking). Read accepts a JSON array of
// rows or NDJSON with a row a line. Each row is one request:
//
//	request_id        → id
//	startTime         → occurred_at
//	endTime − startTime → latency_ms
//	completionStartTime − startTime → ttft_ms, except when it equals
//	                    endTime: LiteLLM writes endTime there for calls that
//	                    did not stream, which says nothing about the first token
//	model             → model (the deployment's model; model_group, the name
//	                    the client asked for, when model is empty)
//	prompt_tokens     → input_tokens. LiteLLM reports usage in OpenAI's shape
//	                    for every provider ("Prompt Caching",
//	                    docs.litellm.ai/docs/completion/prompt_caching):
//	                    "prompt_tokens: These are all prompt tokens including
//	                    cache-miss and cache-hit input tokens" — already
//	                    MISSION.md's meaning.
//	metadata.usage_object.prompt_tokens_details.cached_tokens → cached_input_tokens
//	                    ("Tokens that were a cache-hit for that call"); when
//	                    absent, usage_object.cache_read_input_tokens, then the
//	                    same two in metadata.additional_usage_values (older
//	                    LiteLLM versions). No usage object means 0 cached.
//	completion_tokens → output_tokens (reasoning included, as in OpenAI's usage)
//
// metadata and request_tags are JSON in the table and may arrive as JSON
// text inside a string; both spellings are read. Times are RFC 3339, or a
// timestamp without a zone (as PostgreSQL exports print them), taken as
// UTC, or Unix seconds.
//
// Skipped rows: status "failure" (a failed call, logged without usage);
// cache_hit true (LiteLLM answered from its own response cache: the model
// did no work); rows with no prompt or completion tokens (image, audio and
// moderation calls).
//
// Workload and tag fields: any top-level column (request_id, call_type,
// api_key, model, model_group, model_id, custom_llm_provider, api_base,
// user, end_user, team_id, organization_id, session_id, request_tags —
// joined with "," — and so on) or metadata.NAME. Default workload team_id;
// default tags call_type, model_group, custom_llm_provider, api_key,
// team_id, user, end_user, metadata.user_api_key_alias,
// metadata.user_api_key_team_alias.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/flopledger/flopledger/usage"
)

var (
	litellmFields = []string{"request_id", "call_type", "api_key", "model", "model_group", "model_id",
		"custom_llm_provider", "api_base", "user", "end_user", "team_id", "organization_id", "session_id",
		"request_tags", "status", "cache_hit", "cache_key", "requester_ip_address", "mcp_namespaced_tool_name"}
	litellmTags = []string{"call_type", "model_group", "custom_llm_provider", "api_key", "team_id", "user",
		"end_user", "metadata.user_api_key_alias", "metadata.user_api_key_team_alias"}
)

// jsonObject is a JSON object, decoded lazily: columns change types between
// LiteLLM versions and export paths.
type jsonObject map[string]json.RawMessage

func readLiteLLM(r io.Reader, e *emitter) error {
	return jsonValues(r, "row", MaxValueBytes, func(raw []byte, pos string, err error) error {
		if err != nil {
			return e.fail(pos, err)
		}
		return e.litellmRow(pos, raw)
	})
}

func (e *emitter) litellmRow(pos string, raw []byte) error {
	var row jsonObject
	if err := json.Unmarshal(raw, &row); err != nil {
		return e.fail(pos, jsonError(err, nil))
	}
	meta, err := row.object("metadata")
	if err != nil {
		return e.failf(pos, "metadata: %v", err)
	}
	switch {
	case strings.EqualFold(row.text("status"), "failure"):
		return e.skip(pos, "status failure: a failed call has no usage")
	case strings.EqualFold(row.text("cache_hit"), "true"):
		return e.skip(pos, "cache_hit: LiteLLM answered from its response cache; the model did no work")
	}
	input, err1 := row.count("prompt_tokens")
	output, err2 := row.count("completion_tokens")
	cached, err3 := litellmCached(meta)
	start, hasStart, err4 := row.time("startTime")
	end, hasEnd, err5 := row.time("endTime")
	first, hasFirst, err6 := row.time("completionStartTime")
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return e.fail(pos, err)
	}
	if input == 0 && output == 0 {
		return e.skip(pos, "no prompt or completion tokens")
	}
	if !hasStart {
		return e.failf(pos, "startTime is missing")
	}
	rec := usage.Record{
		ID:                row.text("request_id"),
		OccurredAt:        start,
		Model:             row.text("model"),
		InputTokens:       input,
		CachedInputTokens: cached,
		OutputTokens:      output,
		Requests:          1,
	}
	if rec.Model == "" {
		rec.Model = row.text("model_group")
	}
	if hasEnd {
		ms := end.Sub(start).Round(time.Millisecond).Milliseconds()
		rec.LatencyMS = &ms
	}
	if hasFirst && !(hasEnd && first.Equal(end)) {
		ms := first.Sub(start).Round(time.Millisecond).Milliseconds()
		rec.TTFTMS = &ms
	}
	get := func(f string) string {
		if k, ok := strings.CutPrefix(f, "metadata."); ok {
			return meta.text(k)
		}
		return row.text(f)
	}
	return e.record(pos, rec, get)
}

// litellmCached finds the cached prompt tokens in a row's metadata.
func litellmCached(meta jsonObject) (int64, error) {
	for _, obj := range []string{"usage_object", "additional_usage_values"} {
		u, err := meta.object(obj)
		if err != nil {
			return 0, fmt.Errorf("metadata.%s: %w", obj, err)
		}
		d, err := u.object("prompt_tokens_details")
		if err != nil {
			return 0, fmt.Errorf("metadata.%s.prompt_tokens_details: %w", obj, err)
		}
		for _, c := range []struct {
			f   jsonObject
			key string
		}{{d, "cached_tokens"}, {u, "cache_read_input_tokens"}} {
			if c.f.has(c.key) {
				n, err := c.f.count(c.key)
				if err != nil {
					return 0, fmt.Errorf("metadata.%s: %w", obj, err)
				}
				return n, nil
			}
		}
	}
	return 0, nil
}

// has reports whether key is present and not null.
func (f jsonObject) has(key string) bool {
	v, ok := f[key]
	return ok && string(v) != "null"
}

// text renders a scalar for an id, a model, a workload or a tag: a string
// as is, a number or boolean as written, an array of them joined with ",".
// Null, absent and objects give "".
func (f jsonObject) text(key string) string {
	return jsonText(f[key])
}

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		json.Unmarshal(raw, &s) // a string the decoder checked cannot fail
		return s
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		parts := make([]string, 0, len(items))
		for _, it := range items {
			if t := jsonText(it); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, ",")
	case '{', 'n':
		return ""
	}
	return string(raw) // a number, true or false
}

// count reads a token count: a JSON integer, or one written as a string.
// Absent and null are 0.
func (f jsonObject) count(key string) (int64, error) {
	if !f.has(key) {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(jsonText(f[key])), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s is not an integer", key, clip(f[key]))
	}
	return n, nil
}

// object reads a nested object, which may be JSON text inside a string.
// Absent, null and "" are an empty object.
func (f jsonObject) object(key string) (jsonObject, error) {
	raw := f[key]
	if len(raw) > 0 && raw[0] == '"' {
		raw = json.RawMessage(jsonText(raw))
	}
	if len(strings.TrimSpace(string(raw))) == 0 || string(raw) == "null" {
		return jsonObject{}, nil
	}
	var obj jsonObject
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("want a JSON object, got %s", clip(f[key]))
	}
	return obj, nil
}

// litellmTimeLayouts are the spellings of a time seen in spend log exports.
var litellmTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999",
}

// time reads a time column; ok is false when it is absent or null.
func (f jsonObject) time(key string) (t time.Time, ok bool, err error) {
	if !f.has(key) {
		return time.Time{}, false, nil
	}
	raw := f[key]
	if raw[0] != '"' {
		secs, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsNaN(secs) || math.Abs(secs) > 1e11 {
			return time.Time{}, false, fmt.Errorf("%s: %s is not a time", key, clip(raw))
		}
		return time.UnixMicro(int64(math.Round(secs * 1e6))).UTC(), true, nil
	}
	s := strings.TrimSpace(jsonText(raw))
	for _, layout := range litellmTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true, nil
		}
	}
	return time.Time{}, false, fmt.Errorf("%s: %q is not a time (RFC 3339, e.g. 2026-10-01T12:00:00Z)", key, s)
}
