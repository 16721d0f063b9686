package estimator

import "math/big"

// reference is an independent, deliberately naive rendering of the
// convention: per-request quantities as big.Rat (P = I/n and so on), the
// per-layer formulas written out component by component, then multiplied by
// n. Compute arranges the same arithmetic differently (integers scaled by 2n).
type reference struct {
	prefill, decode map[Component]*big.Rat
}

func rat(x int64) *big.Rat { return new(big.Rat).SetInt64(x) }

func ratMul(xs ...*big.Rat) *big.Rat {
	p := rat(1)
	for _, x := range xs {
		p.Mul(p, x)
	}
	return p
}

func ratAdd(xs ...*big.Rat) *big.Rat {
	s := rat(0)
	for _, x := range xs {
		s.Add(s, x)
	}
	return s
}

func ratMin(x, y *big.Rat) *big.Rat {
	if x.Cmp(y) < 0 {
		return x
	}
	return y
}

func ratMax(x, y *big.Rat) *big.Rat {
	if x.Cmp(y) > 0 {
		return x
	}
	return y
}

// referenceFLOPs assumes valid inputs.
func referenceFLOPs(a Architecture, r Request) reference {
	if r.Requests == 0 {
		r.Requests = 1
	}
	kv, hd := a.KVHeads, a.HeadDim
	if kv == 0 {
		kv = a.Heads
	}
	if hd == 0 {
		hd = a.DModel / a.Heads
	}
	d, L, H := rat(a.DModel), rat(a.Layers), rat(a.Heads)
	mats := rat(3)
	if a.MLP == MLPPlain {
		mats = rat(2)
	}
	// FLOPs per processed token in one layer, and per attended position.
	q := ratMul(rat(2), d, H, rat(hd))
	kvp := ratMul(rat(2), rat(2), d, rat(kv), rat(hd))
	out := ratMul(rat(2), H, rat(hd), d)
	attn := ratMul(rat(2), H, rat(hd))
	var mlpAll, routerAll *big.Rat // summed over layers
	if a.MoE == nil {
		mlpAll = ratMul(mats, rat(2), d, rat(a.DFF), L)
		routerAll = rat(0)
	} else {
		m := a.MoE
		sparse := rat(a.Layers - m.DenseLayers)
		perSparse := ratMul(mats, rat(2), d, ratAdd(ratMul(rat(m.TopK), rat(m.DFFExpert)), ratMul(rat(m.Shared), rat(m.DFFShared))))
		perDense := ratMul(mats, rat(2), d, rat(a.DFF))
		mlpAll = ratAdd(ratMul(perSparse, sparse), ratMul(perDense, rat(m.DenseLayers)))
		routerAll = ratMul(rat(2), d, rat(m.Experts), sparse)
	}
	lm := ratMul(rat(2), d, rat(a.Vocab))

	n := rat(r.Requests)
	P := new(big.Rat).Quo(rat(r.InputTokens), n)
	C := new(big.Rat).Quo(rat(r.CachedInputTokens), n)
	O := new(big.Rat).Quo(rat(r.OutputTokens), n)
	one := rat(1)
	Ce := ratMax(rat(0), ratMin(C, new(big.Rat).Sub(P, one)))
	prefillTokens := new(big.Rat).Sub(P, Ce)
	// Σ_{i=C'+1}^{P} i
	prefillCtx := new(big.Rat).Sub(ratMul(P, ratAdd(P, one)), ratMul(Ce, ratAdd(Ce, one)))
	prefillCtx.Quo(prefillCtx, rat(2))
	D := ratMax(rat(0), new(big.Rat).Sub(O, one))
	// Σ_{j=1}^{D} (P+j)
	decodeCtx := ratAdd(ratMul(D, P), new(big.Rat).Quo(ratMul(D, ratAdd(D, one)), rat(2)))

	phase := func(tokens, ctx, heads *big.Rat) map[Component]*big.Rat {
		return map[Component]*big.Rat{
			QProj:      ratMul(n, L, q, tokens),
			KVProj:     ratMul(n, L, kvp, tokens),
			AttnScores: ratMul(n, L, attn, ctx),
			AttnValues: ratMul(n, L, attn, ctx),
			OutProj:    ratMul(n, L, out, tokens),
			MLP:        ratMul(n, mlpAll, tokens),
			Router:     ratMul(n, routerAll, tokens),
			LMHead:     ratMul(n, lm, heads),
		}
	}
	return reference{
		prefill: phase(prefillTokens, prefillCtx, one),
		decode:  phase(D, decodeCtx, D),
	}
}

// roundHalfUp rounds a non-negative rational to the nearest integer, halves up.
func roundHalfUp(x *big.Rat) *big.Int {
	y := new(big.Rat).Add(x, big.NewRat(1, 2))
	return new(big.Int).Quo(y.Num(), y.Denom()) // floor, y ≥ 0
}

func sumRat(m map[Component]*big.Rat) *big.Rat {
	s := rat(0)
	for _, v := range m {
		s.Add(s, v)
	}
	return s
}
