package estimator

import (
	"math/big"
	"math/bits"
)

// MLPKind is the shape of a feed-forward block.
type MLPKind string

const (
	// MLPGated is a gated MLP (SwiGLU, GeGLU): gate, up and down
	// projections, three d×F matrices.
	MLPGated MLPKind = "gated"
	// MLPPlain is a two-matrix MLP (GPT-2): up and down projections.
	MLPPlain MLPKind = "plain"
)

// matrices is the number of d×F matrices one MLP of this kind multiplies by,
// 0 for an unknown kind.
func (k MLPKind) matrices() int64 {
	switch k {
	case MLPGated:
		return 3
	case MLPPlain:
		return 2
	}
	return 0
}

// MoE describes the mixture-of-experts feed-forward layers. Every expert,
// routed or shared, is an MLP of the architecture's MLPKind.
type MoE struct {
	// Experts is the number of routed experts E, all of which the router scores.
	Experts int64 `json:"n_experts"`
	// TopK is the number of routed experts each token runs through.
	TopK int64 `json:"top_k"`
	// DFFExpert is a routed expert's hidden width.
	DFFExpert int64 `json:"d_ff_expert"`
	// Shared is the number of shared experts every token runs through.
	Shared int64 `json:"n_shared,omitempty"`
	// DFFShared is a shared expert's hidden width (0 when Shared is 0).
	DFFShared int64 `json:"d_ff_shared,omitempty"`
	// DenseLayers is how many of the n_layers use a dense MLP of width
	// d_ff instead of experts and router (Qwen-MoE's mlp_only_layers and
	// decoder_sparse_step); 0 means every layer is sparse.
	DenseLayers int64 `json:"n_dense_layers,omitempty"`
}

// Architecture is a decoder-only transformer as the FLOPs convention sees
// it. The JSON names are the API's (MISSION.md, "Model architectures").
type Architecture struct {
	DModel  int64 `json:"d_model"`
	Layers  int64 `json:"n_layers"`
	Heads   int64 `json:"n_heads"`
	KVHeads int64 `json:"n_kv_heads,omitempty"` // 0 = Heads (multi-head attention)
	HeadDim int64 `json:"head_dim,omitempty"`   // 0 = DModel/Heads
	// DFF is the dense MLP width. A mixture-of-experts model has none (0)
	// unless some of its layers are dense (MoE.DenseLayers > 0).
	DFF            int64   `json:"d_ff"`
	MLP            MLPKind `json:"mlp"`
	Vocab          int64   `json:"vocab"`
	TiedEmbeddings bool    `json:"tied_embeddings,omitempty"`
	MoE            *MoE    `json:"moe,omitempty"`
}

// Normalized returns a copy with the defaults filled in: KVHeads = Heads
// when 0, and HeadDim = DModel/Heads when 0 and DModel is a multiple of
// Heads (otherwise HeadDim stays 0 and Validate reports it). The copy shares
// nothing with a: its MoE, if any, is a fresh value.
func (a Architecture) Normalized() Architecture {
	if a.KVHeads == 0 {
		a.KVHeads = a.Heads
	}
	if a.HeadDim == 0 && a.Heads > 0 && a.DModel%a.Heads == 0 {
		a.HeadDim = a.DModel / a.Heads
	}
	if a.MoE != nil {
		m := *a.MoE
		a.MoE = &m
	}
	return a
}

// sparseLayers is the number of mixture-of-experts layers (0 for a dense model).
func (a Architecture) sparseLayers() int64 {
	if a.MoE == nil {
		return 0
	}
	return a.Layers - a.MoE.DenseLayers
}

// coefficients are FLOPs per processed token summed over all layers, except
// attn (FLOPs per attended position, for each of attn_scores and
// attn_values) and lmHead (FLOPs per lm_head evaluation).
type coefficients struct {
	q, kv, out, attn, mlp, router, lmHead *big.Int
}

// coefficientsOf assumes a normalized, valid architecture.
func coefficientsOf(a Architecture) coefficients {
	L, d, H, hd := a.Layers, a.DModel, a.Heads, a.HeadDim
	m := a.MLP.matrices()
	c := coefficients{
		q:      product(2, L, d, H, hd),
		kv:     product(4, L, d, a.KVHeads, hd),
		out:    product(2, L, H, hd, d),
		attn:   product(2, L, H, hd),
		router: new(big.Int),
		lmHead: product(2, d, a.Vocab),
	}
	if a.MoE == nil {
		c.mlp = product(2, m, d, a.DFF, L)
		return c
	}
	sparse := a.sparseLayers()
	width := new(big.Int).Add(product(a.MoE.TopK, a.MoE.DFFExpert), product(a.MoE.Shared, a.MoE.DFFShared))
	c.mlp = width.Mul(width, product(2, m, d, sparse))
	c.mlp.Add(c.mlp, product(2, m, d, a.DFF, a.MoE.DenseLayers))
	c.router = product(2, d, a.MoE.Experts, sparse)
	return c
}

// product multiplies int64 factors exactly. Validation and Prepare call it
// a few dozen times per architecture, so it multiplies in uint64 while the
// factors are non-negative and the product fits, and only then goes on in
// math/big.
func product(factors ...int64) *big.Int {
	acc, i := uint64(1), 0
	for ; i < len(factors) && factors[i] >= 0; i++ {
		hi, lo := bits.Mul64(acc, uint64(factors[i]))
		if hi != 0 {
			break
		}
		acc = lo
	}
	p := new(big.Int).SetUint64(acc)
	var f big.Int
	for _, x := range factors[i:] {
		p.Mul(p, f.SetInt64(x))
	}
	return p
}
