package estimator

import "fmt"

// MaxTokens caps every token count of a Request (10^15, a thousand times a
// large provider's monthly traffic), so that a typo cannot ask for an
// absurd computation.
const MaxTokens int64 = 1_000_000_000_000_000

// Request is the traffic to estimate: token totals over a bucket of
// Requests requests (one request when Requests is 0 or 1). The token
// meanings are MISSION.md's: InputTokens counts every prompt token, cached
// or not; CachedInputTokens is the part of them served from a prefix cache;
// OutputTokens counts generated tokens, reasoning tokens included.
type Request struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	Requests          int64 `json:"requests"` // 0 means 1
}

// Normalized returns r with Requests 0 replaced by 1.
func (r Request) Normalized() Request {
	if r.Requests == 0 {
		r.Requests = 1
	}
	return r
}

// Validate reports every problem at once as a ValidationError whose field
// names are the JSON ones: negative counts, counts above MaxTokens, cached
// tokens exceeding input tokens, and a bucket with fewer prompt tokens than
// requests (every request has at least one prompt token).
func (r Request) Validate() error {
	n := r.Normalized()
	var p problems
	input := p.count("input_tokens", n.InputTokens)
	cached := p.count("cached_input_tokens", n.CachedInputTokens)
	p.count("output_tokens", n.OutputTokens)
	requests := p.count("requests", n.Requests)
	if input && cached && n.CachedInputTokens > n.InputTokens {
		p.add("cached_input_tokens", fmt.Sprintf("(%d) must not exceed input_tokens (%d): cached tokens are part of the input", n.CachedInputTokens, n.InputTokens))
	}
	if input && requests && n.InputTokens < n.Requests {
		p.add("input_tokens", fmt.Sprintf("(%d) must be at least requests (%d): every request has at least one prompt token", n.InputTokens, n.Requests))
	}
	return p.err()
}

// count checks a non-negative count capped at MaxTokens and says whether it is valid.
func (p *problems) count(field string, v int64) bool {
	switch {
	case v < 0:
		p.add(field, "must not be negative")
	case v > MaxTokens:
		p.add(field, fmt.Sprintf("must be at most %d", MaxTokens))
	default:
		return true
	}
	return false
}
