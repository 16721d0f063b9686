package importer

// Format openai: pages of the OpenAI organization Usage API for
// completions, GET /v1/organization/usage/completions, as documented in
// OpenAI's API reference (platform.openai.com/docs/api-reference/usage/
// completions; the same schema, UsageCompletionsResult, is in the official
// SDKs, e.g. openai-go's api.md). A page is {"object":"page","data":
// [buckets],"has_more","next_page"}; a bucket is {"object":"bucket",
// "start_time","end_time" (Unix seconds),"results":[…]}. Read accepts one
// page, a JSON array of pages, or NDJSON with a page a line.
//
// Each result of object "organization.usage.completions.result" becomes a
// record of num_model_requests requests:
//
//	input_tokens        → input_tokens. The reference: "The aggregated number
//	                      of input tokens used, including cached and
//	                      cache-write tokens. This includes text, audio, and
//	                      image tokens." It already has MISSION.md's meaning.
//	input_cached_tokens → cached_input_tokens ("cached input tokens used
//	                      across text, audio, and image inputs"; null is 0)
//	output_tokens       → output_tokens
//	num_model_requests  → requests (required: a bucket's FLOPs depend on it)
//	model               → model (null unless the export used group_by=model)
//	start_time          → occurred_at
//
// input_audio_tokens, input_image_tokens and the other breakdowns are parts
// of input_tokens and are not added again. (Older versions of the reference
// called input_tokens "text input tokens" with input_audio_tokens beside
// it; an export from that time undercounts audio prompts.)
//
// Workload and tag fields: project_id, user_id, api_key_id, model, batch,
// service_tier (the group_by dimensions). Default workload project_id;
// default tags project_id, user_id, api_key_id, batch, service_tier.
//
// The id is "openai:" + sha256 of start_time, end_time and every grouping
// field, so the same export imports to the same ids. Collisions considered:
// results of one bucket differ in at least one grouping field, and a result
// that would share an id with another of its bucket (a grouping this
// importer does not know) is a bad item rather than silently deduplicated.
// end_time is in the id because an hourly and a daily bucket can start
// together. Exports of one period with different group_by sets do not share
// ids, so importing both counts that usage twice.

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/flopledger/flopledger/usage"
)

var (
	openaiFields = []string{"project_id", "user_id", "api_key_id", "model", "batch", "service_tier"}
	openaiTags   = []string{"project_id", "user_id", "api_key_id", "batch", "service_tier"}
)

const openaiResultObject = "organization.usage.completions.result"

type openaiPage struct {
	Object string            `json:"object"`
	Data   []json.RawMessage `json:"data"`
}

type openaiBucket struct {
	StartTime *int64            `json:"start_time"`
	EndTime   int64             `json:"end_time"`
	Results   []json.RawMessage `json:"results"`
}

type openaiResult struct {
	Object            string  `json:"object"`
	InputTokens       *int64  `json:"input_tokens"`
	InputCachedTokens *int64  `json:"input_cached_tokens"`
	OutputTokens      *int64  `json:"output_tokens"`
	NumModelRequests  *int64  `json:"num_model_requests"`
	ProjectID         *string `json:"project_id"`
	UserID            *string `json:"user_id"`
	APIKeyID          *string `json:"api_key_id"`
	Model             *string `json:"model"`
	Batch             *bool   `json:"batch"`
	ServiceTier       *string `json:"service_tier"`
}

func readOpenAI(r io.Reader, e *emitter) error {
	return jsonValues(r, "page", MaxValueBytes, func(raw []byte, pos string, err error) error {
		if err != nil {
			return e.fail(pos, err)
		}
		var page openaiPage
		if err := json.Unmarshal(raw, &page); err != nil {
			return e.fail(pos, jsonError(err, nil))
		}
		if page.Data == nil {
			return e.failf(pos, "not a usage page: it has no \"data\" array of buckets")
		}
		for i, b := range page.Data {
			if err := e.openaiBucket(fmt.Sprintf("%s bucket %d", pos, i+1), b); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *emitter) openaiBucket(pos string, raw json.RawMessage) error {
	var b openaiBucket
	if err := json.Unmarshal(raw, &b); err != nil {
		return e.fail(pos, jsonError(err, nil))
	}
	if b.StartTime == nil {
		return e.failf(pos, "start_time is missing")
	}
	start := time.Unix(*b.StartTime, 0).UTC()
	ids := map[string]int{} // id → result number, to catch an unknown grouping
	for i, rr := range b.Results {
		rpos := fmt.Sprintf("%s result %d", pos, i+1)
		var res openaiResult
		if err := json.Unmarshal(rr, &res); err != nil {
			if err := e.fail(rpos, jsonError(err, nil)); err != nil {
				return err
			}
			continue
		}
		fields := res.fields()
		id := bucketID(OpenAI, "start_time="+strconv.FormatInt(*b.StartTime, 10), "end_time="+strconv.FormatInt(b.EndTime, 10),
			"project_id="+fields("project_id"), "user_id="+fields("user_id"), "api_key_id="+fields("api_key_id"),
			"model="+fields("model"), "batch="+fields("batch"), "service_tier="+fields("service_tier"))
		var err error
		if prev, dup := ids[id]; dup {
			err = e.failf(rpos, "has the same grouping fields as result %d of this bucket, so the two would share an id; the export groups by a field this importer does not know", prev)
		} else {
			ids[id] = i + 1
			err = e.openaiResult(rpos, res, id, start, fields)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) openaiResult(pos string, res openaiResult, id string, start time.Time, fields func(string) string) error {
	switch {
	case res.Object != "" && res.Object != openaiResultObject:
		return e.skip(pos, fmt.Sprintf("object %q is not a completions result", res.Object))
	case res.InputTokens == nil:
		return e.failf(pos, "input_tokens is missing")
	case res.NumModelRequests == nil:
		return e.failf(pos, "num_model_requests is missing: a bucket's FLOPs cannot be estimated without its request count")
	case *res.NumModelRequests == 0 && *res.InputTokens == 0 && deref(res.OutputTokens) == 0:
		return e.skip(pos, "no usage: no requests and no tokens")
	case fields("model") == "":
		return e.failf(pos, "model is null: export the usage with group_by=model, since FLOPs depend on the model")
	}
	rec := usage.Record{
		ID:                id,
		OccurredAt:        start,
		Model:             fields("model"),
		InputTokens:       *res.InputTokens,
		CachedInputTokens: deref(res.InputCachedTokens),
		OutputTokens:      deref(res.OutputTokens),
		Requests:          *res.NumModelRequests,
	}
	if rec.Requests == 0 {
		// Zero would mean one request to usage.Record; tokens without
		// requests are a broken result, not a single request.
		return e.failf(pos, "num_model_requests is 0 but the result has tokens")
	}
	return e.record(pos, rec, fields)
}

// fields returns the grouping fields of a result as strings; null is "".
func (res openaiResult) fields() func(string) string {
	m := map[string]string{
		"project_id":   derefStr(res.ProjectID),
		"user_id":      derefStr(res.UserID),
		"api_key_id":   derefStr(res.APIKeyID),
		"model":        derefStr(res.Model),
		"service_tier": derefStr(res.ServiceTier),
	}
	if res.Batch != nil {
		m["batch"] = strconv.FormatBool(*res.Batch)
	}
	return func(f string) string { return m[f] }
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
