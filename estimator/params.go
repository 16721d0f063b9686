package estimator

import (
	"math"
	"math/big"
)

// Params returns the architecture's weight count: total, and active (the
// weights one token runs through: top_k routed experts plus the shared
// ones instead of all experts; equal to total for a dense model).
//
// Counted (units: parameters): the embedding table V·d; an untied lm_head
// V·d; per layer the attention projections d·H·hd + 2·d·Hkv·hd + H·hd·d,
// the MLP m·d·F (m = 3 gated, 2 plain) or, on mixture-of-experts layers,
// E·m·d·Fe + S·m·d·Fs plus the router E·d, and two norm weight vectors 2·d;
// plus a final norm d. Not counted: biases, position-embedding tables and
// extra norms (see the package documentation).
//
// The result is exact for a valid architecture (Validate caps the total at
// MaxParams); for an invalid one it is meaningless but Params never panics
// and saturates at math.MaxInt64.
func (a Architecture) Params() (total, active int64) {
	t, act := a.paramCounts()
	return saturate(t), saturate(act)
}

// paramCounts is Params without the int64 conversion.
func (a Architecture) paramCounts() (total, active *big.Int) {
	a = a.Normalized()
	d, H, hd, m := a.DModel, a.Heads, a.HeadDim, a.MLP.matrices()
	layer := product(d, H, hd, 2) // q_proj and out_proj
	layer.Add(layer, product(2, d, a.KVHeads, hd))
	layer.Add(layer, product(2, d)) // two norms

	total = new(big.Int).Mul(layer, big.NewInt(a.Layers))
	active = new(big.Int).Set(total)
	if a.MoE == nil {
		dense := product(m, d, a.DFF, a.Layers)
		total.Add(total, dense)
		active.Add(active, dense)
	} else {
		x := a.MoE
		dense := product(m, d, a.DFF, x.DenseLayers)
		sparse := a.sparseLayers()
		shared := product(x.Shared, m, d, x.DFFShared, sparse)
		router := product(x.Experts, d, sparse)
		total.Add(total, dense).Add(total, shared).Add(total, router)
		active.Add(active, dense).Add(active, shared).Add(active, router)
		total.Add(total, product(x.Experts, m, d, x.DFFExpert, sparse))
		active.Add(active, product(x.TopK, m, d, x.DFFExpert, sparse))
	}

	tables := int64(2)
	if a.TiedEmbeddings {
		tables = 1
	}
	rest := product(tables, a.Vocab, d)
	rest.Add(rest, big.NewInt(d)) // final norm
	total.Add(total, rest)
	active.Add(active, rest)
	return total, active
}

func saturate(x *big.Int) int64 {
	switch {
	case x.IsInt64():
		return x.Int64()
	case x.Sign() > 0:
		return math.MaxInt64
	default:
		return math.MinInt64
	}
}
