package estimator

import "math/big"

// Prepared is an architecture validated once, with its per-token FLOPs
// coefficients worked out, for estimating many requests on the same model
// (ingest, the estimate API). It is immutable and safe for concurrent use.
// Obtain one from Prepare; the zero value is not usable.
type Prepared struct {
	exact coefficients // the big path's operands, never written after Prepare
	fast  fastCoefficients
}

// Prepare validates a (returning Validate's ValidationError if it is
// invalid) and computes its coefficients: the part of Compute that depends
// only on the architecture, the parameter count included, and most of its
// cost, done once.
func Prepare(a Architecture) (*Prepared, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	c := coefficientsOf(a.Normalized())
	return &Prepared{exact: c, fast: fastCoefficientsOf(c)}, nil
}

// Compute estimates r on the prepared architecture: exactly what
// Compute(a, r) returns for the architecture p was prepared from. It
// validates only r. Requests within the fast path's 128-bit bounds take
// machine arithmetic: every request on an architecture with
// n_layers·n_heads·head_dim below 2^22 (every catalogued model), and most
// on others. The rest take the math/big path, with the same result.
//
// The Estimate's integers share one allocation: keeping any of them keeps
// all nineteen (under 1 KiB) alive.
func (p *Prepared) Compute(r Request) (Estimate, error) {
	if err := r.Validate(); err != nil {
		return Estimate{}, err
	}
	b := bucketOf(r)
	if e, ok := p.fast.estimate(b); ok {
		return e, nil
	}
	return p.exact.estimate(b), nil
}

// Totals returns Compute's Prefill and Decode without the breakdowns, for
// callers that store only the two phase figures. Each is the phase's exact
// value rounded once (halves up), which is also what its breakdown sums to.
// The two integers share one small allocation.
func (p *Prepared) Totals(r Request) (prefill, decode *big.Int, err error) {
	if err := r.Validate(); err != nil {
		return nil, nil, err
	}
	b := bucketOf(r)
	if pre, dec, ok := p.fast.totals(b); ok {
		t := new(totalValues)
		return setU128(&t.ints[0], t.words[0:words128:words128], pre),
			setU128(&t.ints[1], t.words[words128:2*words128:2*words128], dec), nil
	}
	e := p.exact.estimate(b)
	return e.Prefill, e.Decode, nil
}

// bucket holds the integer quantities of a valid request from which both
// paths derive every figure (doc.go, "Multiplying through by n"): n
// requests, in = I prompt tokens, cached = Ce = min(Cached, I−n) = n·C'
// tokens served from the cache, steps = Dt = max(Out−n, 0) decode steps.
// Each is at most MaxTokens.
type bucket struct {
	n, in, cached, steps uint64
}

// bucketOf assumes r is valid, so every difference below is non-negative.
func bucketOf(r Request) bucket {
	r = r.Normalized()
	return bucket{
		n:      uint64(r.Requests),
		in:     uint64(r.InputTokens),
		cached: uint64(min(r.CachedInputTokens, r.InputTokens-r.Requests)),
		steps:  uint64(max(r.OutputTokens-r.Requests, 0)),
	}
}

// totalValues backs the two integers Totals returns.
type totalValues struct {
	ints  [2]big.Int
	words [2 * words128]big.Word
}
