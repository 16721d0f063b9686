// Package quote answers "what would this traffic cost?": it resolves the
// model (a catalog or registered name, an inline architecture, or a pasted
// config.json), counts a prompt's tokens and its whitespace bloat, and
// estimates prefill and decode FLOPs by the convention. It holds no state of
// its own and discards prompt text once counted.
package quote

import (
	"encoding/json"
	"fmt"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/estimator"
)

// MaxPromptBytes bounds a prompt sent for analysis (4 MiB, about a million
// tokens): tokenising is linear but not free, and a larger body is more
// likely a mistake than a prompt.
const MaxPromptBytes = 4 << 20

// Request is the body of POST /v1/estimate. Token counts are totals over
// Requests requests, as in a usage record; a Prompt is one request's prompt,
// so its tokens count once per request.
type Request struct {
	Model             string                  `json:"model,omitempty"`
	Architecture      *estimator.Architecture `json:"architecture,omitempty"`
	HFConfig          json.RawMessage         `json:"hf_config,omitempty"`
	InputTokens       *int64                  `json:"input_tokens,omitempty"`
	Prompt            *string                 `json:"prompt,omitempty"`
	Tokenizer         string                  `json:"tokenizer,omitempty"`
	CachedInputTokens int64                   `json:"cached_input_tokens"`
	OutputTokens      *int64                  `json:"output_tokens"`
	Requests          *int64                  `json:"requests,omitempty"`
}

func (r Request) hasHFConfig() bool {
	return len(r.HFConfig) > 0 && string(r.HFConfig) != "null"
}

// Validate reports every problem with the request at once. It checks the
// shape and the numbers; whether a model name exists is Estimate's job.
func (r Request) Validate() error {
	var ps []estimator.Problem
	add := func(f, m string) { ps = append(ps, estimator.Problem{Field: f, Message: m}) }

	models := 0
	if r.Model != "" {
		models++
	}
	if r.Architecture != nil {
		models++
		if err := r.Architecture.Validate(); err != nil {
			ps = append(ps, estimator.Nest("architecture", err)...)
		}
	}
	if r.hasHFConfig() {
		models++
		if _, err := estimator.ParseHFConfig(r.HFConfig); err != nil {
			ps = append(ps, estimator.Nest("hf_config", err)...)
		}
	}
	if models != 1 {
		add("model", "give exactly one of model, architecture or hf_config")
	}

	switch {
	case r.InputTokens == nil && r.Prompt == nil:
		add("input_tokens", "give input_tokens or a prompt")
	case r.InputTokens != nil && r.Prompt != nil:
		add("prompt", "give input_tokens or a prompt, not both")
	case r.Prompt != nil && len(*r.Prompt) > MaxPromptBytes:
		add("prompt", fmt.Sprintf("is %d bytes; the limit is %d", len(*r.Prompt), MaxPromptBytes))
	}
	if r.Tokenizer != "" {
		if r.Prompt == nil {
			add("tokenizer", "applies only to a prompt")
		} else if _, err := bloat.ParseEncoding(r.Tokenizer); err != nil {
			add("tokenizer", err.Error())
		}
	}
	if r.OutputTokens == nil {
		add("output_tokens", "is required (0 for a request that generates nothing)")
	}
	if r.Requests != nil && *r.Requests < 1 {
		add("requests", "must be at least 1")
	}
	// The token arithmetic is the estimator's to check, once the prompt
	// (if any) has been counted; here only what is known up front.
	if r.InputTokens != nil {
		if err := r.shape(*r.InputTokens).Validate(); err != nil {
			ps = append(ps, estimator.Nest("", err)...)
		}
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

// shape is the estimator's request for a given total of input tokens.
func (r Request) shape(input int64) estimator.Request {
	out := estimator.Request{InputTokens: input, CachedInputTokens: r.CachedInputTokens, Requests: r.requests()}
	if r.OutputTokens != nil {
		out.OutputTokens = *r.OutputTokens
	}
	return out
}

func (r Request) requests() int64 {
	if r.Requests == nil {
		return 1
	}
	return *r.Requests
}
