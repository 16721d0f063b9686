package estimator

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// parts lists a breakdown in Components order:
// q_proj, kv_proj, attn_scores, attn_values, out_proj, mlp, router, lm_head.
type parts [8]int64

func (p parts) sum() int64 {
	var s int64
	for _, v := range p {
		s += v
	}
	return s
}

// Tiny architectures whose FLOPs the cases below work out by hand.
var (
	// mha: d=8, L=2, H=2 (so Hkv=2, hd=4), gated F=16, V=10. Per layer and
	// token: q 2·8·2·4 = 128, kv 2·2·8·2·4 = 256, out 2·2·4·8 = 128,
	// mlp 3·2·8·16 = 768; attention 2·2·4 = 16 per attended position;
	// lm_head 2·8·10 = 160.
	mha = Architecture{DModel: 8, Layers: 2, Heads: 2, DFF: 16, MLP: MLPGated, Vocab: 10}
	// gqa: d=6, L=3, H=4, Hkv=2, explicit hd=5 (H·hd = 20 ≠ d), plain F=12,
	// V=7. Per layer and token: q 2·6·4·5 = 240, kv 2·2·6·2·5 = 240,
	// out 2·4·5·6 = 240, mlp 2·2·6·12 = 288; attention 2·4·5 = 40 per
	// position; lm_head 2·6·7 = 84.
	gqa = Architecture{DModel: 6, Layers: 3, Heads: 4, KVHeads: 2, HeadDim: 5, DFF: 12, MLP: MLPPlain, Vocab: 7}
	// moeShared: d=4, L=2, H=2, Hkv=1, hd=2, gated, V=11; 4 experts, top 2
	// of width 3, one shared expert of width 5. Per layer and token:
	// q 2·4·2·2 = 32, kv 2·2·4·1·2 = 32, out 2·2·2·4 = 32,
	// mlp 3·2·4·(2·3 + 1·5) = 264, router 2·4·4 = 32; attention 2·2·2 = 8
	// per position; lm_head 2·4·11 = 88.
	moeShared = Architecture{DModel: 4, Layers: 2, Heads: 2, KVHeads: 1, HeadDim: 2, MLP: MLPGated, Vocab: 11,
		MoE: &MoE{Experts: 4, TopK: 2, DFFExpert: 3, Shared: 1, DFFShared: 5}}
	// moeDense is moeShared with one of its two layers dense, of width 6:
	// mlp per token is 264 (sparse layer) + 3·2·4·6 = 144 (dense layer),
	// router 2·4·4 on the sparse layer only.
	moeDense = Architecture{DModel: 4, Layers: 2, Heads: 2, KVHeads: 1, HeadDim: 2, DFF: 6, MLP: MLPGated, Vocab: 11,
		MoE: &MoE{Experts: 4, TopK: 2, DFFExpert: 3, Shared: 1, DFFShared: 5, DenseLayers: 1}}
	// unit: every size 1, gated. Per token: q 2, kv 4, out 2, mlp 6;
	// attention 2 per position; lm_head 2.
	unit = Architecture{DModel: 1, Layers: 1, Heads: 1, DFF: 1, MLP: MLPGated, Vocab: 1}
)

func TestComputeByHand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		arch            Architecture
		req             Request
		prefill, decode parts
	}{
		{
			// Prefill: positions 1..3, ctx 1+2+3 = 6. Decode: O−1 = 1 step,
			// position 4 attending to 4.
			name:    "dense MHA gated, P=3 O=2",
			arch:    mha,
			req:     Request{InputTokens: 3, OutputTokens: 2},
			prefill: parts{2 * 128 * 3, 2 * 256 * 3, 2 * 16 * 6, 2 * 16 * 6, 2 * 128 * 3, 2 * 768 * 3, 0, 160},
			decode:  parts{2 * 128 * 1, 2 * 256 * 1, 2 * 16 * 4, 2 * 16 * 4, 2 * 128 * 1, 2 * 768 * 1, 0, 160},
		},
		{
			// Cached C=2: positions 3..5 processed, ctx 3+4+5 = 12; O=0: no decode.
			name:    "dense MHA, cached prefix, O=0",
			arch:    mha,
			req:     Request{InputTokens: 5, CachedInputTokens: 2},
			prefill: parts{2 * 128 * 3, 2 * 256 * 3, 2 * 16 * 12, 2 * 16 * 12, 2 * 128 * 3, 2 * 768 * 3, 0, 160},
		},
		{
			// C = P = 4: the last position is still computed (ctx 4); O=1:
			// the only output comes from prefill, no decode step.
			name:    "dense MHA, fully cached C=P, O=1",
			arch:    mha,
			req:     Request{InputTokens: 4, CachedInputTokens: 4, OutputTokens: 1},
			prefill: parts{2 * 128 * 1, 2 * 256 * 1, 2 * 16 * 4, 2 * 16 * 4, 2 * 128 * 1, 2 * 768 * 1, 0, 160},
		},
		{
			// Prefill: positions 3..5, ctx 12. Decode: 2 steps at positions
			// 6 and 7, ctx 6+7 = 13, lm_head twice.
			name:    "GQA plain explicit head_dim, cached, O=3",
			arch:    gqa,
			req:     Request{InputTokens: 5, CachedInputTokens: 2, OutputTokens: 3},
			prefill: parts{3 * 240 * 3, 3 * 240 * 3, 3 * 40 * 12, 3 * 40 * 12, 3 * 240 * 3, 3 * 288 * 3, 0, 84},
			decode:  parts{3 * 240 * 2, 3 * 240 * 2, 3 * 40 * 13, 3 * 40 * 13, 3 * 240 * 2, 3 * 288 * 2, 0, 2 * 84},
		},
		{
			// Prefill: positions 1..2, ctx 3. Decode: positions 3 and 4, ctx 7.
			name:    "MoE with shared expert, P=2 O=3",
			arch:    moeShared,
			req:     Request{InputTokens: 2, OutputTokens: 3},
			prefill: parts{2 * 32 * 2, 2 * 32 * 2, 2 * 8 * 3, 2 * 8 * 3, 2 * 32 * 2, 2 * 264 * 2, 2 * 32 * 2, 88},
			decode:  parts{2 * 32 * 2, 2 * 32 * 2, 2 * 8 * 7, 2 * 8 * 7, 2 * 32 * 2, 2 * 264 * 2, 2 * 32 * 2, 2 * 88},
		},
		{
			// One token, ctx 1; mlp 264 + 144, router on one layer only.
			name:    "MoE with one dense layer, P=1 O=0",
			arch:    moeDense,
			req:     Request{InputTokens: 1},
			prefill: parts{2 * 32, 2 * 32, 2 * 8, 2 * 8, 2 * 32, 264 + 144, 32, 88},
		},
		{
			// 4 requests of mean P = 5/4. Prefill tokens over the bucket: 5.
			// ctx: 4 · P(P+1)/2 = 4 · (5/4)(9/4)/2 = 45/8, so attn_scores =
			// attn_values = 2 · 45/8 = 11.25. Total 10+20+11.25+11.25+10+30+8
			// = 100.5, which rounds up to 101; the missing unit goes to
			// attn_scores (equal remainders, first in order).
			name:    "bucket, fractional mean, half rounds up",
			arch:    unit,
			req:     Request{InputTokens: 5, Requests: 4},
			prefill: parts{10, 20, 12, 11, 10, 30, 0, 2 * 4},
		},
		{
			// 6 requests of mean P = 7/6. ctx: 6 · (7/6)(13/6)/2 = 91/12, so
			// attention = 2 · 91/12 = 15.1667 each. Total 14+28+15.17+15.17
			// +14+42+12 = 140.33, which rounds down to 140.
			name:    "bucket, fractional mean, rounds down",
			arch:    unit,
			req:     Request{InputTokens: 7, Requests: 6},
			prefill: parts{14, 28, 15, 15, 14, 42, 0, 2 * 6},
		},
		{
			// 2 requests, P = 1, O = 5/2: D = 3/2 steps each, Dt = 3 over
			// the bucket. Decode ctx: 2 · (D·P + D(D+1)/2) = 2 · (3/2 + 15/8)
			// = 27/4, attention 2 · 27/4 = 13.5 each; total 6+12+13.5+13.5
			// +6+18+6 = 75 exactly, split 14 / 13.
			name:    "bucket, fractional decode steps",
			arch:    unit,
			req:     Request{InputTokens: 2, OutputTokens: 5, Requests: 2},
			prefill: parts{4, 8, 4, 4, 4, 12, 0, 4},
			decode:  parts{6, 12, 14, 13, 6, 18, 0, 2 * 3},
		},
		{
			// Mean output 3/4 < 1: no decode.
			name:    "bucket, mean output below one token",
			arch:    unit,
			req:     Request{InputTokens: 4, OutputTokens: 3, Requests: 4},
			prefill: parts{8, 16, 8, 8, 8, 24, 0, 8},
		},
		{
			// 2 requests, P = 7/2, C = 3 > P−1 = 5/2, so C' = 5/2: one
			// token each; ctx 2 · (P(P+1) − C'(C'+1))/2 = 63/4 − 35/4 = 7.
			name:    "bucket, cached mean above P−1",
			arch:    unit,
			req:     Request{InputTokens: 7, CachedInputTokens: 6, Requests: 2},
			prefill: parts{4, 8, 14, 14, 4, 12, 0, 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Compute(tt.arch, tt.req)
			if err != nil {
				t.Fatalf("Compute: %v", err)
			}
			checkPhase(t, "prefill", e.Prefill, e.PrefillBreakdown, tt.prefill)
			checkPhase(t, "decode", e.Decode, e.DecodeBreakdown, tt.decode)
			if want := tt.prefill.sum() + tt.decode.sum(); e.Total.Cmp(big.NewInt(want)) != 0 {
				t.Errorf("total = %s, want %d", e.Total, want)
			}
		})
	}
}

func checkPhase(t *testing.T, name string, total *big.Int, b Breakdown, want parts) {
	t.Helper()
	if total.Cmp(big.NewInt(want.sum())) != 0 {
		t.Errorf("%s = %s, want %d", name, total, want.sum())
	}
	if len(b) != len(Components) {
		t.Errorf("%s breakdown has %d components, want %d", name, len(b), len(Components))
	}
	for i, c := range componentOrder() {
		got, ok := b[c]
		if !ok {
			t.Errorf("%s breakdown lacks %s", name, c)
			continue
		}
		if got.Cmp(big.NewInt(want[i])) != 0 {
			t.Errorf("%s %s = %s, want %d", name, c, got, want[i])
		}
	}
}

func TestComponentsOrder(t *testing.T) {
	t.Parallel()
	want := [...]Component{"q_proj", "kv_proj", "attn_scores", "attn_values", "out_proj", "mlp", "router", "lm_head"}
	if Components != want || componentOrder() != want {
		t.Errorf("Components = %v, want %v", Components, want)
	}
}

// randomInput draws a valid architecture and request of modest size.
func randomInput(rng *rand.Rand) (Architecture, Request) {
	heads := 1 + rng.Int64N(8)
	kv := heads
	if rng.IntN(2) == 0 {
		kv = 1
	}
	a := Architecture{
		DModel: heads * (1 + rng.Int64N(16)), Layers: 1 + rng.Int64N(6), Heads: heads, KVHeads: kv,
		DFF: 1 + rng.Int64N(64), MLP: MLPGated, Vocab: 1 + rng.Int64N(1000), TiedEmbeddings: rng.IntN(2) == 0,
	}
	if rng.IntN(2) == 0 {
		a.MLP = MLPPlain
	}
	if rng.IntN(3) == 0 {
		a.HeadDim = 1 + rng.Int64N(32)
	}
	if rng.IntN(2) == 0 {
		m := &MoE{Experts: 1 + rng.Int64N(16), DFFExpert: 1 + rng.Int64N(32)}
		m.TopK = 1 + rng.Int64N(m.Experts)
		if rng.IntN(2) == 0 {
			m.Shared, m.DFFShared = 1+rng.Int64N(2), 1+rng.Int64N(32)
		}
		m.DenseLayers = rng.Int64N(a.Layers + 1)
		if m.DenseLayers == 0 {
			a.DFF = 0
		}
		a.MoE = m
	}
	n := 1 + rng.Int64N(1000)
	in := n + rng.Int64N(100_000)
	r := Request{InputTokens: in, CachedInputTokens: rng.Int64N(in + 1), OutputTokens: rng.Int64N(50_000), Requests: n}
	return a, r
}

// TestComputeProperties checks, over random inputs, that breakdowns sum to
// their phase, that each phase is the reference's exact value rounded half
// up, and that every component is within one FLOP of its exact value.
func TestComputeProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		a, r := randomInput(rng)
		e, err := Compute(a, r)
		if err != nil {
			t.Fatalf("case %d: Compute(%+v, %+v): %v", i, a, r, err)
		}
		checkAgainstReference(t, a, r, e)
	}
}

func checkAgainstReference(t *testing.T, a Architecture, r Request, e Estimate) {
	t.Helper()
	ref := referenceFLOPs(a, r)
	for _, ph := range []struct {
		name  string
		total *big.Int
		b     Breakdown
		exact map[Component]*big.Rat
	}{
		{"prefill", e.Prefill, e.PrefillBreakdown, ref.prefill},
		{"decode", e.Decode, e.DecodeBreakdown, ref.decode},
	} {
		if got := ph.b.Sum(); got.Cmp(ph.total) != 0 {
			t.Fatalf("%+v %+v: %s breakdown sums to %s, phase is %s", a, r, ph.name, got, ph.total)
		}
		if want := roundHalfUp(sumRat(ph.exact)); ph.total.Cmp(want) != 0 {
			t.Fatalf("%+v %+v: %s = %s, reference %s", a, r, ph.name, ph.total, want)
		}
		for _, c := range componentOrder() {
			diff := new(big.Rat).Sub(new(big.Rat).SetInt(ph.b[c]), ph.exact[c])
			if diff.Abs(diff).Cmp(rat(1)) >= 0 {
				t.Fatalf("%+v %+v: %s %s = %s, exact %s", a, r, ph.name, c, ph.b[c], ph.exact[c].FloatString(3))
			}
		}
	}
	if sum := new(big.Int).Add(e.Prefill, e.Decode); sum.Cmp(e.Total) != 0 {
		t.Fatalf("total %s ≠ prefill + decode %s", e.Total, sum)
	}
}

// TestBucketEqualsRepeatedRequest: a bucket of n identical requests costs n
// times one request, phase by phase and component by component.
func TestBucketEqualsRepeatedRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		arch Architecture
		one  Request
		n    int64
	}{
		{"llama-3.1-8b chat", mustLookup(t, "llama-3.1-8b").Architecture, Request{InputTokens: 1200, CachedInputTokens: 800, OutputTokens: 350}, 7},
		{"mixtral-8x7b fully cached", mustLookup(t, "mixtral-8x7b").Architecture, Request{InputTokens: 512, CachedInputTokens: 512, OutputTokens: 1}, 1000},
		{"qwen1.5-moe no output", mustLookup(t, "qwen1.5-moe-a2.7b").Architecture, Request{InputTokens: 33}, 3},
		{"gpt2 one token", mustLookup(t, "gpt2").Architecture, Request{InputTokens: 1, OutputTokens: 2}, 999_999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			single, err := Compute(tt.arch, tt.one)
			if err != nil {
				t.Fatal(err)
			}
			bucket, err := Compute(tt.arch, Request{
				InputTokens: tt.n * tt.one.InputTokens, CachedInputTokens: tt.n * tt.one.CachedInputTokens,
				OutputTokens: tt.n * tt.one.OutputTokens, Requests: tt.n,
			})
			if err != nil {
				t.Fatal(err)
			}
			n := big.NewInt(tt.n)
			times := func(x *big.Int) *big.Int { return new(big.Int).Mul(x, n) }
			if bucket.Total.Cmp(times(single.Total)) != 0 {
				t.Errorf("bucket total %s ≠ %d × %s", bucket.Total, tt.n, single.Total)
			}
			for _, c := range componentOrder() {
				if bucket.PrefillBreakdown[c].Cmp(times(single.PrefillBreakdown[c])) != 0 {
					t.Errorf("prefill %s: bucket %s ≠ %d × %s", c, bucket.PrefillBreakdown[c], tt.n, single.PrefillBreakdown[c])
				}
				if bucket.DecodeBreakdown[c].Cmp(times(single.DecodeBreakdown[c])) != 0 {
					t.Errorf("decode %s: bucket %s ≠ %d × %s", c, bucket.DecodeBreakdown[c], tt.n, single.DecodeBreakdown[c])
				}
			}
		})
	}
}

func mustLookup(t testing.TB, name string) Model {
	t.Helper()
	m, ok := Lookup(name)
	if !ok {
		t.Fatalf("Lookup(%q) found nothing", name)
	}
	return m
}

// TestHugeRequest: a 2,000,000-token prompt on Llama 3.1 405B, alone and in
// a bucket of 10^6 requests, far beyond int64, checked against the big.Rat
// reference and against the closed form written out once more by hand.
func TestHugeRequest(t *testing.T) {
	t.Parallel()
	arch := mustLookup(t, "llama-3.1-405b").Architecture
	const P, n = 2_000_000, 1_000_000

	t.Run("single request, closed form", func(t *testing.T) {
		t.Parallel()
		e, err := Compute(arch, Request{InputTokens: P, OutputTokens: 1})
		if err != nil {
			t.Fatal(err)
		}
		// Per token over 126 layers: 2·d·(H·hd + 2·Hkv·hd + H·hd) + 3·2·d·F,
		// with d = 16384, H·hd = 16384, Hkv·hd = 1024, F = 53248; attention
		// 2·2·H·hd per position, Σ_{i=1}^{P} i = P(P+1)/2; one lm_head 2·d·V.
		perToken := big.NewInt(2*16384*(16384+2*1024+16384) + 3*2*16384*53248)
		want := new(big.Int).Mul(perToken, big.NewInt(126*P))
		attn := new(big.Int).Mul(big.NewInt(126*2*2*16384), big.NewInt(P*(P+1)/2))
		want.Add(want, attn).Add(want, big.NewInt(2*16384*128256))
		if e.Prefill.Cmp(want) != 0 || e.Decode.Sign() != 0 {
			t.Errorf("prefill %s decode %s, want %s and 0", e.Prefill, e.Decode, want)
		}
		if e.Prefill.IsInt64() {
			t.Errorf("prefill %s fits int64; the test expects a figure beyond it", e.Prefill)
		}
	})

	t.Run("bucket of a million", func(t *testing.T) {
		t.Parallel()
		r := Request{InputTokens: P * n, CachedInputTokens: P / 4 * n, OutputTokens: 300*n + 1, Requests: n}
		e, err := Compute(arch, r)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstReference(t, arch, r, e)
		if e.Total.BitLen() < 80 {
			t.Errorf("total %s is smaller than expected (about 1.7e25)", e.Total)
		}
	})
}

func TestComputeRejectsInvalidInput(t *testing.T) {
	t.Parallel()
	_, err := Compute(Architecture{DModel: 8, Layers: 1, Heads: 3, DFF: 4, MLP: MLPGated, Vocab: 10},
		Request{InputTokens: 1, CachedInputTokens: 2, Requests: 2})
	var ve ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Compute error = %v, want a ValidationError", err)
	}
	got := fields(ve)
	for _, f := range []string{"head_dim", "cached_input_tokens", "input_tokens"} {
		if !got[f] {
			t.Errorf("problems %v lack %q", ve.Problems, f)
		}
	}
}

func TestParamsSaturate(t *testing.T) {
	t.Parallel()
	absurd := Architecture{DModel: math.MaxInt64, Layers: math.MaxInt64, Heads: 1, DFF: 1, MLP: MLPGated, Vocab: 1}
	if total, _ := absurd.Params(); total != math.MaxInt64 {
		t.Errorf("Params of an absurd architecture = %d, want saturation at MaxInt64", total)
	}
}
