package quote

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
)

// Resolver finds a model by name (catalog.Registry does).
type Resolver interface {
	Resolve(ctx context.Context, name string) (catalog.Model, error)
}

// Service estimates requests.
type Service struct {
	models Resolver
	tokens *bloat.Counter
	plans  Plans
	now    func() time.Time
}

// New returns a Service resolving names with models and counting prompts
// with tokens.
func New(models Resolver, tokens *bloat.Counter) *Service {
	return &Service{models: models, tokens: tokens}
}

// WithPlans returns a copy of s that also prices every estimate under each
// plan, by the version in force at now().
func (s *Service) WithPlans(p Plans, now func() time.Time) *Service {
	c := *s
	c.plans, c.now = p, now
	return &c
}

// Breakdown is the FLOPs of each component, per phase.
type Breakdown struct {
	Prefill estimator.Breakdown `json:"prefill"`
	Decode  estimator.Breakdown `json:"decode"`
}

// Human is the FLOPs figures for people, e.g. "2.31 TFLOPs".
type Human struct {
	Prefill string `json:"prefill"`
	Decode  string `json:"decode"`
	Total   string `json:"total"`
}

// Bloat is what a prompt's redundant whitespace costs (MISSION.md,
// "Prompt bloat"). Counts are per request; FLOPs are over all requests.
type Bloat struct {
	Tokenizer        string `json:"tokenizer"`
	Tokens           int64  `json:"tokens"`
	NormalizedTokens int64  `json:"normalized_tokens"`
	BloatTokens      int64  `json:"bloat_tokens"`
	// BloatRatio is bloat_tokens / tokens as a decimal string with six
	// places, truncated ("0.000000" for an empty prompt).
	BloatRatio string `json:"bloat_ratio"`
	// PrefillFLOPs is the prefill the bloat costs: this estimate's prefill
	// minus the prefill of the same traffic with the normalised prompt.
	PrefillFLOPs *big.Int `json:"prefill_flops"`
	// TotalFLOPs is the same difference on the total (decode attends to a
	// shorter context too).
	TotalFLOPs *big.Int `json:"total_flops"`
	// RedundantSpans are the byte ranges [start, end) of the prompt that
	// the normalisation removes, for highlighting.
	RedundantSpans []bloat.Span `json:"redundant_spans"`
}

// Result is the answer of POST /v1/estimate. FLOPs are exact integers.
type Result struct {
	Model             string    `json:"model"`
	ModelSource       string    `json:"model_source"`
	ModelVersion      int       `json:"model_version,omitempty"`
	InputTokens       int64     `json:"input_tokens"`
	CachedInputTokens int64     `json:"cached_input_tokens"`
	OutputTokens      int64     `json:"output_tokens"`
	Requests          int64     `json:"requests"`
	PrefillFLOPs      *big.Int  `json:"prefill_flops"`
	DecodeFLOPs       *big.Int  `json:"decode_flops"`
	TotalFLOPs        *big.Int  `json:"total_flops"`
	Breakdown         Breakdown `json:"breakdown"`
	Human             Human     `json:"human"`
	Bloat             *Bloat    `json:"bloat,omitempty"`
	// Costs are the estimate's price under each plan (when plans exist).
	Costs []Cost `json:"costs,omitempty"`
}

// Estimate validates req, resolves its model, counts its prompt if any, and
// returns the estimate. Errors are estimator.ValidationError for bad input,
// *catalog.NotFoundError for an unknown model, or a failure of the store.
func (s *Service) Estimate(ctx context.Context, req Request) (Result, error) {
	if err := req.Validate(); err != nil {
		return Result{}, err
	}
	_, prepared, res, err := s.model(ctx, req)
	if err != nil {
		return Result{}, err
	}
	var analysis *bloat.Analysis
	input := int64(0)
	if req.InputTokens != nil {
		input = *req.InputTokens
	} else {
		a, err := s.tokens.Analyze(bloat.Encoding(req.Tokenizer), *req.Prompt)
		if err != nil {
			return Result{}, estimator.ValidationError{Problems: []estimator.Problem{{Field: "tokenizer", Message: err.Error()}}}
		}
		analysis = &a
		input = int64(a.Tokens) * req.requests()
	}
	shape := req.shape(input)
	est, err := prepared.Compute(shape)
	if err != nil {
		// Only a prompt can get here: its token count was not known to
		// Validate (an empty prompt, or more cached tokens than it has).
		return Result{}, promptProblems(err, input)
	}
	res.InputTokens, res.CachedInputTokens, res.OutputTokens, res.Requests = shape.InputTokens, shape.CachedInputTokens, shape.OutputTokens, shape.Requests
	res.PrefillFLOPs, res.DecodeFLOPs, res.TotalFLOPs = est.Prefill, est.Decode, est.Total
	res.Breakdown = Breakdown{Prefill: est.PrefillBreakdown, Decode: est.DecodeBreakdown}
	res.Human = Human{Prefill: estimator.HumanFLOPs(est.Prefill), Decode: estimator.HumanFLOPs(est.Decode), Total: estimator.HumanFLOPs(est.Total)}
	if analysis != nil {
		b, err := bloatCost(prepared, shape, est, *analysis)
		if err != nil {
			return Result{}, err
		}
		res.Bloat = b
	}
	if s.plans != nil {
		if res.Costs, err = costs(ctx, s.plans, s.now(), res); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// model resolves the request's architecture, prepared for estimating, and
// fills the result's model fields.
func (s *Service) model(ctx context.Context, req Request) (estimator.Architecture, *estimator.Prepared, Result, error) {
	var a estimator.Architecture
	var res Result
	switch {
	case req.Model != "":
		m, err := s.models.Resolve(ctx, req.Model)
		if err != nil {
			return a, nil, Result{}, err
		}
		res = Result{Model: m.Name, ModelSource: m.Source, ModelVersion: m.Version}
		if m.Prepared != nil {
			return m.Architecture, m.Prepared, res, nil
		}
		a = m.Architecture
	case req.Architecture != nil:
		a, res = req.Architecture.Normalized(), Result{Model: "(architecture)", ModelSource: catalog.SourceArchitecture}
	default:
		hf, err := estimator.ParseHFConfig(req.HFConfig)
		if err != nil { // validated already; kept for safety
			return a, nil, Result{}, err
		}
		a, res = hf.Normalized(), Result{Model: "(hf_config)", ModelSource: catalog.SourceHFConfig}
	}
	p, err := estimator.Prepare(a)
	if err != nil {
		return a, nil, Result{}, estimator.ValidationError{Problems: estimator.Nest("architecture", err)}
	}
	return a, p, res, nil
}

// bloatCost prices the bloat: the same traffic with the normalised prompt,
// cached tokens capped at its length, against the estimate as given.
func bloatCost(p *estimator.Prepared, shape estimator.Request, est estimator.Estimate, a bloat.Analysis) (*Bloat, error) {
	n := shape.Requests
	lean := shape
	lean.InputTokens = int64(a.NormalizedTokens) * n
	lean.CachedInputTokens = min(shape.CachedInputTokens, lean.InputTokens)
	b := &Bloat{
		Tokenizer:        string(a.Encoding),
		Tokens:           int64(a.Tokens),
		NormalizedTokens: int64(a.NormalizedTokens),
		BloatTokens:      int64(a.BloatTokens),
		BloatRatio:       ratio(int64(a.BloatTokens), int64(a.Tokens)),
		PrefillFLOPs:     new(big.Int),
		TotalFLOPs:       new(big.Int),
		RedundantSpans:   a.Spans,
	}
	if b.RedundantSpans == nil {
		b.RedundantSpans = []bloat.Span{}
	}
	if a.BloatTokens == 0 || lean.InputTokens < n {
		return b, nil // nothing to save, or nothing left to estimate
	}
	leanEst, err := p.Compute(lean)
	if err != nil {
		return nil, fmt.Errorf("quote: estimate without bloat: %w", err)
	}
	b.PrefillFLOPs.Sub(est.Prefill, leanEst.Prefill)
	b.TotalFLOPs.Sub(est.Total, leanEst.Total)
	return b, nil
}

// ratio renders num/den with six decimal places, truncated toward zero.
func ratio(num, den int64) string {
	if den == 0 {
		return "0.000000"
	}
	scaled := new(big.Int).Quo(new(big.Int).Mul(big.NewInt(num), big.NewInt(1_000_000)), big.NewInt(den))
	s := fmt.Sprintf("%07d", scaled.Int64())
	return s[:len(s)-6] + "." + s[len(s)-6:]
}

// promptProblems restates the estimator's complaints about input_tokens as
// complaints about the prompt the client actually sent.
func promptProblems(err error, input int64) error {
	ve, ok := err.(estimator.ValidationError)
	if !ok {
		return err
	}
	out := make([]estimator.Problem, len(ve.Problems))
	for i, p := range ve.Problems {
		if p.Field == "input_tokens" {
			p = estimator.Problem{Field: "prompt", Message: fmt.Sprintf("counts %d tokens over all requests: %s", input, p.Message)}
		}
		out[i] = p
	}
	return estimator.ValidationError{Problems: out}
}
