package estimator

import (
	"errors"
	"math/big"
	"math/bits"
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
// and each phase's breakdown summing exactly to that phase. Its nineteen
// integers are distinct but share one allocation.
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
// Its cost does not depend on the token counts. It is Prepare(a) followed
// by Prepared.Compute(r): a caller estimating many requests on one
// architecture should keep the Prepared instead, which saves most of the
// cost.
func Compute(a Architecture, r Request) (Estimate, error) {
	p, err := Prepare(a)
	if err != nil {
		var ps problems
		var ve ValidationError
		if errors.As(err, &ve) {
			ps = append(ps, ve.Problems...)
		}
		if err := r.Validate(); errors.As(err, &ve) {
			ps = append(ps, ve.Problems...)
		}
		return Estimate{}, ps.err()
	}
	return p.Compute(r)
}

// estimate is the big path: the convention in math/big, every component
// scaled by den = 2n and apportioned in general, whatever the sizes. The
// fast path must agree with it exactly (prepared_test.go).
func (c *coefficients) estimate(b bucket) Estimate {
	var s bigScratch
	for i, z := range s.ints() {
		reserve(z, s.words[i*scratchWords:(i+1)*scratchWords])
	}
	v := new(estimateValues)
	for i := range v.ints {
		reserve(&v.ints[i], v.words[i*words128:(i+1)*words128])
	}
	n := s.n.SetUint64(b.n)
	in := s.in.SetUint64(b.in)
	s.den.Lsh(n, 1) // every bucket quantity is a multiple of 1/(2n)

	// Prefill: Ce = n·C' prompt tokens are served from the cache, where
	// C' = min(C, P−1) keeps the last prompt position computed.
	cached := s.cached.SetUint64(b.cached)
	tokens := s.tokens.Sub(in, cached)
	ctx := s.ctx.Mul(in, s.t1.Add(in, n)) // I(I+n) − Ce(Ce+n) = 2n · n·Σ ctx
	ctx.Sub(ctx, s.t2.Mul(cached, s.t1.Add(cached, n)))
	c.phase(&s, tokens, ctx, n, v.ints[prefillAt:prefillAt+8], &v.ints[prefillTotalAt])

	// Decode: Dt = n·max(O−1, 0) steps over the bucket.
	steps := s.tokens.SetUint64(b.steps)
	ctx.Mul(steps, s.t1.Add(steps, n)) // 2·Dt·I + Dt(Dt+n) = 2n · n·Σ ctx
	ctx.Add(ctx, s.t2.Lsh(s.t1.Mul(steps, in), 1))
	c.phase(&s, steps, ctx, steps, v.ints[decodeAt:decodeAt+8], &v.ints[decodeTotalAt])

	v.ints[totalAt].Add(&v.ints[prefillTotalAt], &v.ints[decodeTotalAt])
	return v.estimate()
}

// bigScratch holds the big path's intermediate values, so that their
// storage is allocated once per estimate rather than once per operation,
// and with words reserved for them, not at all while they fit.
type bigScratch struct {
	n, in, den, cached, tokens, ctx, t1, t2 big.Int
	scaled, rems                            [8]big.Int
	words                                   [24 * scratchWords]big.Word
}

// scratchWords is room for 256 bits, more than any scratch value of a valid
// input needs: coefficients are below 2^52, token counts below 2^50, den
// below 2^51 and ctx2n below 2^102, so scaled values are below 2^153.
const scratchWords = 256 / bits.UintSize

func (s *bigScratch) ints() [24]*big.Int {
	return [...]*big.Int{&s.n, &s.in, &s.den, &s.cached, &s.tokens, &s.ctx, &s.t1, &s.t2,
		&s.scaled[0], &s.scaled[1], &s.scaled[2], &s.scaled[3], &s.scaled[4], &s.scaled[5], &s.scaled[6], &s.scaled[7],
		&s.rems[0], &s.rems[1], &s.rems[2], &s.rems[3], &s.rems[4], &s.rems[5], &s.rems[6], &s.rems[7]}
}

// phase computes one phase's rounded breakdown into parts (componentOrder)
// and its figure into total. tokens is the number of processed tokens over
// the bucket, ctx2n the bucket's sum of attended positions times den, heads
// the number of lm_head evaluations; none of them may be s.t1 or s.t2.
func (c *coefficients) phase(s *bigScratch, tokens, ctx2n, heads *big.Int, parts []big.Int, total *big.Int) {
	tok2n := s.t1.Mul(tokens, &s.den)
	sc := &s.scaled
	sc[0].Mul(c.q, tok2n)
	sc[1].Mul(c.kv, tok2n)
	sc[2].Mul(c.attn, ctx2n)
	sc[3].Set(&sc[2])
	sc[4].Mul(c.out, tok2n)
	sc[5].Mul(c.mlp, tok2n)
	sc[6].Mul(c.router, tok2n)
	sc[7].Mul(c.lmHead, s.t2.Mul(heads, &s.den))
	apportion(s, parts, total)
}

// apportion divides each of s.scaled by s.den and rounds the parts so that
// they sum to the total rounded to the nearest integer, halves up
// (largest-remainder method, ties broken by component order).
func apportion(s *bigScratch, parts []big.Int, total *big.Int) {
	total.SetInt64(0)
	for i := range s.scaled {
		total.Add(total, &s.scaled[i])
	}
	// Values are non-negative: floor((x + den/2) / den).
	total.DivMod(total.Add(total, s.t1.Rsh(&s.den, 1)), &s.den, &s.t2)

	missing := s.t1.Set(total)
	for i := range s.scaled {
		parts[i].DivMod(&s.scaled[i], &s.den, &s.rems[i])
		missing.Sub(missing, &parts[i])
	}
	// Order by remainder, largest first; insertion sort is stable, so
	// equal remainders keep component order.
	idx := [8]int{0, 1, 2, 3, 4, 5, 6, 7}
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && s.rems[idx[j]].Cmp(&s.rems[idx[j-1]]) > 0; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	// missing is between 0 and the number of parts with a non-zero remainder.
	one := s.t2.SetInt64(1)
	for k := range missing.Int64() {
		parts[idx[k]].Add(&parts[idx[k]], one)
	}
}

// reserve sets z to 0 with w as its storage, which later operations on z
// use while the value fits, and outgrow by allocating (capacity len(w):
// never into a neighbour's words).
func reserve(z *big.Int, w []big.Word) {
	z.SetBits(w[:0:len(w)])
}

// estimateValues backs the nineteen integers of an Estimate in one
// allocation: the two breakdowns, the two phases and the total, at the
// indices below. words is storage for their values, enough for any value of
// the fast path (setU128) and the big path's while they fit in 128 bits.
type estimateValues struct {
	ints  [19]big.Int
	words [19 * words128]big.Word
}

const (
	prefillAt      = 0 // 8 components, componentOrder
	decodeAt       = 8 // 8 components, componentOrder
	prefillTotalAt = 16
	decodeTotalAt  = 17
	totalAt        = 18
)

func (v *estimateValues) estimate() Estimate {
	prefill, decode := make(Breakdown, 8), make(Breakdown, 8)
	for i, comp := range componentOrder() {
		prefill[comp] = &v.ints[prefillAt+i]
		decode[comp] = &v.ints[decodeAt+i]
	}
	return Estimate{
		Prefill:          &v.ints[prefillTotalAt],
		Decode:           &v.ints[decodeTotalAt],
		Total:            &v.ints[totalAt],
		PrefillBreakdown: prefill,
		DecodeBreakdown:  decode,
	}
}
