package importer

// Format anthropic: pages of the Anthropic Admin API usage report for
// messages, GET /v1/organizations/usage_report/messages, as documented in
// "Get Messages Usage Report" (platform.claude.com/docs/en/api/admin-api/
// usage-cost/get-messages-usage-report). A page is {"data":[buckets],
// "has_more","next_page"}; a bucket is {"starting_at","ending_at" (RFC
// 3339),"results":[…]}; a result has uncached_input_tokens,
// cache_creation {ephemeral_1h_input_tokens, ephemeral_5m_input_tokens},
// cache_read_input_tokens, output_tokens, server_tool_use
// {web_search_requests}, and the group_by dimensions api_key_id,
// workspace_id, model, service_tier, context_window (null when not grouped
// by). Read accepts one page, a JSON array of pages, or NDJSON with a page
// a line.
//
// Anthropic splits the prompt into three disjoint parts (the Messages API's
// usage: input_tokens excludes cache reads and writes; the report calls the
// first part uncached_input_tokens). MISSION.md's input_tokens counts them
// all:
//
//	input_tokens        = uncached_input_tokens
//	                    + cache_creation.ephemeral_5m_input_tokens
//	                    + cache_creation.ephemeral_1h_input_tokens
//	                    + cache_read_input_tokens
//	cached_input_tokens = cache_read_input_tokens
//	output_tokens       = output_tokens
//	occurred_at         = starting_at
//
// Cache writes count as input but not as cached: the model processed those
// tokens to write them; only a read is served from the cache.
//
// The documented result has no request count (web_search_requests counts
// server tool calls, not model requests). A bucket's FLOPs cannot be
// estimated without one: attention grows with prompt length, so a bucket
// taken as one giant request is badly wrong. The format therefore requires
// Options.TokensPerRequest, the mean prompt tokens per request, and sets
// requests = max(1, round(input_tokens / TokensPerRequest)), halves up.
//
// Workload and tag fields: workspace_id, api_key_id, model, service_tier,
// context_window. Default workload workspace_id (null is the organization's
// default workspace, which gets Options.DefaultWorkload); default tags
// workspace_id, api_key_id, service_tier, context_window.
//
// The id is "anthropic:" + sha256 of starting_at, ending_at and the five
// grouping fields; collisions are handled as for openai (openai.go): a
// result sharing its id with another of its bucket is a bad item.

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/flopledger/flopledger/usage"
)

var (
	anthropicFields = []string{"workspace_id", "api_key_id", "model", "service_tier", "context_window"}
	anthropicTags   = []string{"workspace_id", "api_key_id", "service_tier", "context_window"}
)

type anthropicPage struct {
	Data []json.RawMessage `json:"data"`
}

type anthropicBucket struct {
	StartingAt string            `json:"starting_at"`
	EndingAt   string            `json:"ending_at"`
	Results    []json.RawMessage `json:"results"`
}

type anthropicResult struct {
	UncachedInputTokens *int64 `json:"uncached_input_tokens"`
	CacheCreation       struct {
		Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
		Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	} `json:"cache_creation"`
	CacheReadInputTokens int64   `json:"cache_read_input_tokens"`
	OutputTokens         int64   `json:"output_tokens"`
	APIKeyID             *string `json:"api_key_id"`
	WorkspaceID          *string `json:"workspace_id"`
	Model                *string `json:"model"`
	ServiceTier          *string `json:"service_tier"`
	ContextWindow        *string `json:"context_window"`
}

func readAnthropic(r io.Reader, e *emitter) error {
	return jsonValues(r, "page", MaxValueBytes, func(raw []byte, pos string, err error) error {
		if err != nil {
			return e.fail(pos, err)
		}
		var page anthropicPage
		if err := json.Unmarshal(raw, &page); err != nil {
			return e.fail(pos, jsonError(err, nil))
		}
		if page.Data == nil {
			return e.failf(pos, "not a usage report page: it has no \"data\" array of buckets")
		}
		for i, b := range page.Data {
			if err := e.anthropicBucket(fmt.Sprintf("%s bucket %d", pos, i+1), b); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *emitter) anthropicBucket(pos string, raw json.RawMessage) error {
	var b anthropicBucket
	if err := json.Unmarshal(raw, &b); err != nil {
		return e.fail(pos, jsonError(err, nil))
	}
	start, err := time.Parse(time.RFC3339Nano, b.StartingAt)
	if err != nil {
		return e.failf(pos, "starting_at %q is not an RFC 3339 time", b.StartingAt)
	}
	// The id uses the parsed times, so that "Z" and "+00:00" spellings of
	// one bucket agree; an unparseable ending_at is kept as written.
	end := b.EndingAt
	if t, err := time.Parse(time.RFC3339Nano, end); err == nil {
		end = t.UTC().Format(time.RFC3339Nano)
	}
	ids := map[string]int{}
	for i, rr := range b.Results {
		rpos := fmt.Sprintf("%s result %d", pos, i+1)
		var res anthropicResult
		if err := json.Unmarshal(rr, &res); err != nil {
			if err := e.fail(rpos, jsonError(err, nil)); err != nil {
				return err
			}
			continue
		}
		fields := res.fields()
		id := bucketID(Anthropic, "starting_at="+start.UTC().Format(time.RFC3339Nano), "ending_at="+end,
			"workspace_id="+fields("workspace_id"), "api_key_id="+fields("api_key_id"), "model="+fields("model"),
			"service_tier="+fields("service_tier"), "context_window="+fields("context_window"))
		if prev, dup := ids[id]; dup {
			err = e.failf(rpos, "has the same grouping fields as result %d of this bucket, so the two would share an id; the report groups by a field this importer does not know", prev)
		} else {
			ids[id] = i + 1
			err = e.anthropicResult(rpos, res, id, start, fields)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) anthropicResult(pos string, res anthropicResult, id string, start time.Time, fields func(string) string) error {
	if res.UncachedInputTokens == nil {
		return e.failf(pos, "uncached_input_tokens is missing")
	}
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"uncached_input_tokens", *res.UncachedInputTokens},
		{"cache_creation.ephemeral_5m_input_tokens", res.CacheCreation.Ephemeral5m},
		{"cache_creation.ephemeral_1h_input_tokens", res.CacheCreation.Ephemeral1h},
		{"cache_read_input_tokens", res.CacheReadInputTokens},
		{"output_tokens", res.OutputTokens},
	} {
		if c.v < 0 {
			return e.failf(pos, "%s is %d; token counts must not be negative", c.name, c.v)
		}
	}
	input, ok := addTokens(*res.UncachedInputTokens, res.CacheCreation.Ephemeral5m, res.CacheCreation.Ephemeral1h, res.CacheReadInputTokens)
	if !ok {
		return e.failf(pos, "the input token counts overflow when added")
	}
	switch {
	case input == 0 && res.OutputTokens == 0:
		return e.skip(pos, "no usage: no tokens")
	case fields("model") == "":
		return e.failf(pos, "model is null: fetch the report with group_by[]=model, since FLOPs depend on the model")
	}
	rec := usage.Record{
		ID:                id,
		OccurredAt:        start,
		Model:             fields("model"),
		InputTokens:       input,
		CachedInputTokens: res.CacheReadInputTokens,
		OutputTokens:      res.OutputTokens,
		Requests:          requestsFor(input, e.o.TokensPerRequest),
	}
	return e.record(pos, rec, fields)
}

// requestsFor estimates a bucket's request count from its prompt tokens:
// max(1, round(input/perRequest)), halves rounded up, without overflow.
func requestsFor(input, perRequest int64) int64 {
	q, rem := input/perRequest, input%perRequest
	if rem >= perRequest-rem {
		q++
	}
	return max(q, 1)
}

func (res anthropicResult) fields() func(string) string {
	m := map[string]string{
		"workspace_id":   derefStr(res.WorkspaceID),
		"api_key_id":     derefStr(res.APIKeyID),
		"model":          derefStr(res.Model),
		"service_tier":   derefStr(res.ServiceTier),
		"context_window": derefStr(res.ContextWindow),
	}
	return func(f string) string { return m[f] }
}
