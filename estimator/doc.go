// Package estimator turns a model architecture and a request's token counts
// into exact FLOPs, split into prefill and decode and broken down by
// component. It is pure: no I/O, no clock, no mutable package state; every
// result is an exact integer (math/big), whatever the size of the request.
//
// # Where the formulas come from
//
// The formulas are the project's normative FLOPs convention (MISSION.md, "The
// FLOPs convention"), which is the usual matmul-only accounting of transformer
// inference (2 FLOPs per multiply-accumulate, one forward pass per token, as in
// Kaplan et al. 2020, "Scaling Laws for Neural Language Models", and
// Hoffmann et al. 2022, "Training Compute-Optimal Large Language Models"),
// made exact for KV-cached serving. Only matrix multiplications count: no
// softmax, normalisation, activation, rotary embedding, residual addition,
// embedding lookup, bias, or Qwen2-MoE shared-expert gate of width 1.
//
// Notation: d = d_model, L = n_layers, H = n_heads, Hkv = n_kv_heads,
// hd = head_dim (default d/H), F = d_ff, V = vocab, E = moe.n_experts,
// k = moe.top_k, Fe = moe.d_ff_expert, S = moe.n_shared, Fs = moe.d_ff_shared,
// Ld = moe.n_dense_layers, m = 3 for a gated MLP (SwiGLU/GeGLU), 2 for a plain one.
//
// Per processed token, summed over the L layers (FLOPs):
//
//	q_proj      2·d·H·hd·L
//	kv_proj     2·2·d·Hkv·hd·L
//	out_proj    2·H·hd·d·L
//	attn_scores 2·H·hd·ctx·L   (ctx = positions the token attends to)
//	attn_values 2·H·hd·ctx·L
//	mlp         dense: m·2·d·F·L
//	            MoE:   m·2·d·(k·Fe + S·Fs)·(L−Ld) + m·2·d·F·Ld
//	router      2·d·E·(L−Ld)   (MoE only)
//	lm_head     2·d·V, once per request in prefill and once per decode step
//
// For one request with P prompt tokens, C of them cached and O output tokens:
//
//	effective cached  C' = max(0, min(C, P−1))   (the last prompt position is always computed)
//	prefill tokens    P − C'
//	prefill ctx sum   Σ_{i=C'+1}^{P} i = (P(P+1) − C'(C'+1)) / 2
//	decode steps      D = max(O−1, 0)            (the first output comes from prefill)
//	decode ctx sum    Σ_{j=1}^{D} (P+j) = D·P + D(D+1)/2
//
// A bucket of n requests with token totals I, Cached, Out is estimated as n
// requests of the mean size (P = I/n, C = Cached/n, O = Out/n, exact
// rationals), so a bucket whose mean output is below one token has no decode.
// Multiplying through by n, every bucket quantity has denominator 2n:
//
//	n·(P − C')  = I − Ce                         with Ce = min(Cached, I−n) = n·C'
//	n·prefill ctx sum = (I(I+n) − Ce(Ce+n)) / (2n)
//	n·D         = Dt = max(Out − n, 0)
//	n·decode ctx sum  = (2·Dt·I + Dt(Dt+n)) / (2n)
//
// Compute evaluates those closed forms scaled by 2n, so its cost does not
// depend on the number of tokens, and nothing overflows (a 2,000,000-token
// prompt on Llama 3.1 405B in a bucket of 10^6 requests is an ordinary
// input): in 128-bit machine arithmetic when bit lengths show that every
// intermediate fits (always, for the catalogued models), with math/big
// otherwise; the two paths give identical results. Prepare does the
// per-architecture work (validation, coefficients) once for many requests.
//
// # Rounding
//
// Prefill and decode are each rounded once to the nearest integer FLOP,
// halves up; Total = Prefill + Decode. Each phase's breakdown is apportioned
// by largest remainder: every component gets the floor of its exact value,
// and the units still missing to reach the phase's rounded total go, one
// each, to the components with the largest fractional parts, ties broken by
// the order of Components. The components of a phase therefore always sum
// exactly to that phase's figure. (Only attn_scores and attn_values can carry
// fractions, and they carry equal ones, so in practice a missing unit goes to
// attn_scores.)
//
// # Known approximations
//
// Sliding-window attention (Mistral's original 4,096-token window, every
// other Gemma 2 layer) is counted as full causal attention: an over-count for
// positions beyond the window, as the convention prescribes.
//
// Params counts weights, not FLOPs: embeddings V·d, an untied lm_head V·d,
// attention, MLP or experts and router, and two norm weight vectors per layer
// plus a final one (as in Llama). Biases, position-embedding tables (GPT-2),
// Gemma 2's two extra per-layer norms and Qwen3's q/k norms are not counted;
// each of those is well below 1% of any catalogued model.
package estimator
