package estimator

import (
	"errors"
	"math/big"
	"sort"
)

// Component names one part of an estimate's breakdown.
type Component string

const (
	QProj      Component = "q_proj"
	KVProj     Component = "kv_proj"
	AttnScores Component = "attn_scores"
	AttnValues Component = "attn_values"
	OutProj    Component = "out_proj"
	MLP        Component = "mlp"
	Router     Component = "router"
	LMHead     Component = "lm_head"
)

// Components lists every component in the convention's order, which is
// also the order that breaks ties when a breakdown is rounded. The package
// itself never reads this variable, so a caller that writes to it changes
// nothing but its own view.
var Components = componentOrder()

func componentOrder() [8]Component {
	return [...]Component{QProj, KVProj, AttnScores, AttnValues, OutProj, MLP, Router, LMHead}
}

// Breakdown maps every component to its FLOPs in one phase; every component
// is present, zeros included.
type Breakdown map[Component]*big.Int

// Sum adds up the breakdown.
func (b Breakdown) Sum() *big.Int {
	s := new(big.Int)
	for _, v := range b {
		s.Add(s, v)
	}
	return s
}

// Estimate is the FLOPs of a Request on an Architecture: Prefill and Decode
// each rounded to the nearest integer (halves up), Total = Prefill + Decode,
// and each phase's breakdown summing exactly to that phase.
type Estimate struct {
	Prefill          *big.Int  `json:"prefill_flops"`
	Decode           *big.Int  `json:"decode_flops"`
	Total            *big.Int  `json:"total_flops"`
	PrefillBreakdown Breakdown `json:"prefill_breakdown"`
	DecodeBreakdown  Breakdown `json:"decode_breakdown"`
}

// Compute estimates the FLOPs of r on a by the convention in the package
// documentation (units: FLOPs, 2 per multiply-accumulate). It validates
// both inputs and returns one ValidationError listing the problems of both.
// Its cost does not depend on the token counts.
func Compute(a Architecture, r Request) (Estimate, error) {
	var p problems
	var ve ValidationError
	if err := a.Validate(); errors.As(err, &ve) {
		p = append(p, ve.Problems...)
	}
	if err := r.Validate(); errors.As(err, &ve) {
		p = append(p, ve.Problems...)
	}
	if err := p.err(); err != nil {
		return Estimate{}, err
	}
	a, r = a.Normalized(), r.Normalized()
	c := coefficientsOf(a)

	n := big.NewInt(r.Requests)
	in := big.NewInt(r.InputTokens)
	den := new(big.Int).Lsh(n, 1) // every bucket quantity is a multiple of 1/(2n)

	// Prefill: Ce = n·C' prompt tokens are served from the cache, where
	// C' = min(C, P−1) keeps the last prompt position computed.
	cached := big.NewInt(min(r.CachedInputTokens, r.InputTokens-r.Requests))
	prefillTokens := new(big.Int).Sub(in, cached)
	prefillCtx := new(big.Int).Mul(in, new(big.Int).Add(in, n)) // I(I+n) − Ce(Ce+n) = 2n · n·Σ ctx
	prefillCtx.Sub(prefillCtx, new(big.Int).Mul(cached, new(big.Int).Add(cached, n)))
	prefill := phase(c, prefillTokens, prefillCtx, n, den)

	// Decode: Dt = n·max(O−1, 0) steps over the bucket.
	steps := big.NewInt(max(r.OutputTokens-r.Requests, 0))
	decodeCtx := new(big.Int).Mul(steps, new(big.Int).Add(steps, n)) // 2·Dt·I + Dt(Dt+n) = 2n · n·Σ ctx
	decodeCtx.Add(decodeCtx, new(big.Int).Lsh(new(big.Int).Mul(steps, in), 1))
	decode := phase(c, steps, decodeCtx, steps, den)

	e := Estimate{
		Prefill:          prefill.Sum(),
		Decode:           decode.Sum(),
		PrefillBreakdown: prefill,
		DecodeBreakdown:  decode,
	}
	e.Total = new(big.Int).Add(e.Prefill, e.Decode)
	return e, nil
}

// phase computes one phase's rounded breakdown. tokens is the number of
// processed tokens over the bucket, ctx2n the bucket's sum of attended
// positions times den, heads the number of lm_head evaluations, and den = 2n.
func phase(c coefficients, tokens, ctx2n, heads, den *big.Int) Breakdown {
	tok2n := new(big.Int).Mul(tokens, den)
	scaled := [...]*big.Int{
		new(big.Int).Mul(c.q, tok2n),
		new(big.Int).Mul(c.kv, tok2n),
		new(big.Int).Mul(c.attn, ctx2n),
		new(big.Int).Mul(c.attn, ctx2n),
		new(big.Int).Mul(c.out, tok2n),
		new(big.Int).Mul(c.mlp, tok2n),
		new(big.Int).Mul(c.router, tok2n),
		new(big.Int).Mul(c.lmHead, new(big.Int).Mul(heads, den)),
	}
	return apportion(scaled, den)
}

// apportion divides each scaled value by den and rounds the parts so that
// they sum to the total rounded to the nearest integer, halves up
// (largest-remainder method, ties broken by component order).
func apportion(scaled [8]*big.Int, den *big.Int) Breakdown {
	order := componentOrder()
	total := new(big.Int)
	for _, v := range scaled {
		total.Add(total, v)
	}
	half := new(big.Int).Rsh(den, 1)
	rounded := total.Div(total.Add(total, half), den) // values are non-negative: floor((x + den/2) / den)

	var parts, rems [8]*big.Int
	missing := rounded
	for i, v := range scaled {
		parts[i], rems[i] = new(big.Int).DivMod(v, den, new(big.Int))
		missing.Sub(missing, parts[i])
	}
	idx := [8]int{0, 1, 2, 3, 4, 5, 6, 7}
	sort.SliceStable(idx[:], func(x, y int) bool { return rems[idx[x]].Cmp(rems[idx[y]]) > 0 })
	// missing is between 0 and the number of parts with a non-zero remainder.
	for k := int64(0); k < missing.Int64(); k++ {
		parts[idx[k]].Add(parts[idx[k]], big.NewInt(1))
	}

	b := make(Breakdown, len(order))
	for i, comp := range order {
		b[comp] = parts[i]
	}
	return b
}
