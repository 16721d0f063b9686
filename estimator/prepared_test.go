package estimator

import (
	"errors"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"sync"
	"testing"
)

// agree checks that, for a valid r, the fast path (when it applies), the big
// path, Prepared.Compute, Prepared.Totals and Compute all give the same
// figures, breakdowns included, and, when withReference, that they are the
// big.Rat reference apportioned independently. It reports whether the fast
// path applied, and checks that it applied exactly when the bounds allow.
func agree(t testing.TB, a Architecture, r Request, withReference bool) (fast bool) {
	t.Helper()
	p, err := Prepare(a)
	if err != nil {
		t.Fatalf("Prepare(%+v): %v", a, err)
	}
	b := bucketOf(r)
	slow := p.exact.estimate(b)
	quick, fast := p.fast.estimate(b)
	if want := fastApplies(p, b); fast != want {
		t.Fatalf("%+v %+v: fast path taken %v, bounds say %v", a, r, fast, want)
	}
	if fast {
		sameEstimate(t, "fast path", quick, slow, a, r)
	}
	got, err := p.Compute(r)
	if err != nil {
		t.Fatalf("Prepared.Compute(%+v): %v", r, err)
	}
	sameEstimate(t, "Prepared.Compute", got, slow, a, r)
	got, err = Compute(a, r)
	if err != nil {
		t.Fatalf("Compute(%+v, %+v): %v", a, r, err)
	}
	sameEstimate(t, "Compute", got, slow, a, r)
	pre, dec, err := p.Totals(r)
	if err != nil || pre.Cmp(slow.Prefill) != 0 || dec.Cmp(slow.Decode) != 0 {
		t.Fatalf("%+v %+v: Totals = %v, %v, %v; big path %s, %s", a, r, pre, dec, err, slow.Prefill, slow.Decode)
	}
	if withReference {
		ref := referenceFLOPs(a, r)
		for _, ph := range []struct {
			name  string
			total *big.Int
			b     Breakdown
			exact map[Component]*big.Rat
		}{
			{"prefill", slow.Prefill, slow.PrefillBreakdown, ref.prefill},
			{"decode", slow.Decode, slow.DecodeBreakdown, ref.decode},
		} {
			parts, total := referenceParts(ph.exact)
			if ph.total.Cmp(total) != 0 {
				t.Fatalf("%+v %+v: %s = %s, reference %s", a, r, ph.name, ph.total, total)
			}
			for i, c := range componentOrder() {
				if ph.b[c].Cmp(parts[i]) != 0 {
					t.Fatalf("%+v %+v: %s %s = %s, reference %s", a, r, ph.name, c, ph.b[c], parts[i])
				}
			}
		}
	}
	return fast
}

// fastApplies restates the fast path's bound on its own: every coefficient
// below 2^62, and attn·ctx2n bounded by 2^125 through the bit lengths.
func fastApplies(p *Prepared, b bucket) bool {
	c := p.exact
	for _, x := range []*big.Int{c.q, c.kv, c.out, c.attn, c.mlp, c.router, c.lmHead} {
		if x.BitLen() > 62 {
			return false
		}
	}
	pre, dec := ctxBits(b)
	return c.attn.BitLen()+pre <= 125 && c.attn.BitLen()+dec <= 125
}

// ctxBits returns the bit lengths of the two phases' ctx2n, computed in big.Int.
func ctxBits(b bucket) (prefill, decode int) {
	n, in, ce, dt := new(big.Int).SetUint64(b.n), new(big.Int).SetUint64(b.in), new(big.Int).SetUint64(b.cached), new(big.Int).SetUint64(b.steps)
	pre := new(big.Int).Mul(in, new(big.Int).Add(in, n))
	pre.Sub(pre, new(big.Int).Mul(ce, new(big.Int).Add(ce, n)))
	dec := new(big.Int).Mul(dt, new(big.Int).Add(dt, n))
	dec.Add(dec, new(big.Int).Lsh(new(big.Int).Mul(dt, in), 1))
	return pre.BitLen(), dec.BitLen()
}

// referenceParts apportions exact component values as the package
// documentation states it, written independently of apportion: floors,
// then one unit at a time to the largest remaining fraction, the earliest
// component first among equals.
func referenceParts(exact map[Component]*big.Rat) (parts [8]*big.Int, total *big.Int) {
	total = roundHalfUp(sumRat(exact))
	missing := new(big.Int).Set(total)
	var fracs [8]*big.Rat
	for i, c := range componentOrder() {
		x := exact[c]
		parts[i] = new(big.Int).Quo(x.Num(), x.Denom()) // floor: x ≥ 0
		fracs[i] = new(big.Rat).Sub(x, new(big.Rat).SetInt(parts[i]))
		missing.Sub(missing, parts[i])
	}
	var given [8]bool
	for ; missing.Sign() > 0; missing.Sub(missing, big.NewInt(1)) {
		best := -1
		for i := range fracs {
			if !given[i] && (best < 0 || fracs[i].Cmp(fracs[best]) > 0) {
				best = i
			}
		}
		given[best] = true
		parts[best].Add(parts[best], big.NewInt(1))
	}
	return parts, total
}

func sameEstimate(t testing.TB, what string, got, want Estimate, a Architecture, r Request) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want *big.Int
	}{{"prefill", got.Prefill, want.Prefill}, {"decode", got.Decode, want.Decode}, {"total", got.Total, want.Total}} {
		if f.got.Cmp(f.want) != 0 {
			t.Fatalf("%s on %+v %+v: %s = %s, big path %s", what, a, r, f.name, f.got, f.want)
		}
	}
	for _, ph := range []struct {
		name      string
		got, want Breakdown
	}{{"prefill", got.PrefillBreakdown, want.PrefillBreakdown}, {"decode", got.DecodeBreakdown, want.DecodeBreakdown}} {
		if len(ph.got) != len(Components) {
			t.Fatalf("%s on %+v %+v: %s breakdown has %d components", what, a, r, ph.name, len(ph.got))
		}
		for _, c := range componentOrder() {
			if ph.got[c].Cmp(ph.want[c]) != 0 {
				t.Fatalf("%s on %+v %+v: %s %s = %s, big path %s", what, a, r, ph.name, c, ph.got[c], ph.want[c])
			}
		}
	}
}

// logUniform draws from [lo, hi] with every order of magnitude about as likely.
func logUniform(rng *rand.Rand, lo, hi int64) int64 {
	top := bits.Len64(uint64(hi))
	for {
		x := rng.Int64N(int64(1) << rng.IntN(top+1))
		if x >= lo && x <= hi {
			return x
		}
	}
}

// randomBucket draws a valid request: n from 1 to 10^6 (sometimes up to
// MaxTokens), means often fractional, cached tokens up to C = P, output
// totals around n (mean output 0, below 1, 1, above).
func randomBucket(rng *rand.Rand) Request {
	n := logUniform(rng, 1, 1_000_000)
	if rng.IntN(20) == 0 {
		n = logUniform(rng, 1, MaxTokens)
	}
	in := n + logUniform(rng, 0, MaxTokens-n)
	if rng.IntN(3) == 0 {
		in = n + rng.Int64N(min(3*n, MaxTokens-n)+1) // a mean prompt of one to four tokens
	}
	r := Request{InputTokens: in, Requests: n}
	switch rng.IntN(4) {
	case 0:
		r.CachedInputTokens = in // C = P
	case 1:
		r.CachedInputTokens = rng.Int64N(in + 1)
	case 2:
		r.CachedInputTokens = max(in-n-rng.Int64N(3), 0) // around I − n, where C' stops following C
	}
	switch rng.IntN(6) {
	case 0: // O = 0
	case 1:
		r.OutputTokens = n // O = 1
	case 2:
		r.OutputTokens = max(n-1, 0) // mean just below one token
	case 3:
		r.OutputTokens = min(n+1, MaxTokens)
	default:
		r.OutputTokens = logUniform(rng, 0, MaxTokens)
	}
	if rng.IntN(10) == 0 {
		r.Requests = 0 // means 1
		if r.InputTokens < 1 || (n != 1 && r.CachedInputTokens > r.InputTokens) {
			r.Requests = n
		}
	}
	return r
}

// wideArch draws a valid architecture whose attention coefficient 2·L·H·hd
// is large (up to about 2^48), so that realistic token counts reach the
// fast path's bound from both sides. Dense and MoE, plain and gated.
func wideArch(rng *rand.Rand) Architecture {
	for {
		heads := 1 + rng.Int64N(8)
		a := Architecture{
			DModel: 1 + rng.Int64N(64), Layers: logUniform(rng, 1, MaxDimension), Heads: heads, KVHeads: heads,
			HeadDim: logUniform(rng, 1, MaxDimension), DFF: 1 + rng.Int64N(1000), MLP: MLPGated, Vocab: 1 + rng.Int64N(1000),
		}
		if rng.IntN(2) == 0 {
			a.KVHeads, a.MLP = 1, MLPPlain
		}
		if rng.IntN(3) == 0 {
			a.MoE = &MoE{Experts: 4, TopK: 2, DFFExpert: 1 + rng.Int64N(100), DenseLayers: rng.Int64N(2)}
			if a.MoE.DenseLayers == 0 {
				a.DFF = 0
			}
		}
		if a.Validate() == nil {
			return a
		}
	}
}

// nearBound returns a request whose prefill (or decode) scaled context sum
// has bit length target or target+1 ± a little, so that attn·ctx2n straddles
// the fast path's bound. It returns false when the target is out of reach.
func nearBound(rng *rand.Rand, target int, decode bool) (Request, bool) {
	if target < 2 || target > 100 {
		return Request{}, false
	}
	// For one request, ctx2n is about x² where x is P (prefill) or O (decode).
	x := int64(new(big.Int).Sqrt(new(big.Int).Lsh(big.NewInt(1), uint(target))).Uint64())
	x += rng.Int64N(5) - 2
	if x < 2 || x > MaxTokens {
		return Request{}, false
	}
	if decode {
		return Request{InputTokens: 1 + rng.Int64N(3), OutputTokens: x}, true
	}
	return Request{InputTokens: x, CachedInputTokens: rng.Int64N(3), OutputTokens: rng.Int64N(2)}, true
}

// TestFastPathMatchesBig: over many random inputs, small and large, the
// fast path, the big path and the big.Rat reference agree exactly,
// breakdowns included, and inputs on both sides of the fast path's bound
// are exercised.
func TestFastPathMatchesBig(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	rounds := 3000
	if testing.Short() {
		rounds = 300
	}
	catalog := Catalog()
	var fast, slow, edgeFast, edgeSlow int
	for i := range rounds {
		withReference := i%3 == 0
		// Catalogued models with any request.
		m := catalog[rng.IntN(len(catalog))]
		agree(t, m.Architecture, randomBucket(rng), withReference)
		// Small random architectures with small requests (the reference's home ground) and with any.
		a, r := randomInput(rng)
		agree(t, a, r, withReference)
		agree(t, a, randomBucket(rng), withReference)
		// Wide architectures with any request and near the bound.
		a = wideArch(rng)
		if agree(t, a, randomBucket(rng), withReference) {
			fast++
		} else {
			slow++
		}
		p, _ := Prepare(a)
		target := 125 - p.fast.attnBits
		for _, decode := range []bool{false, true} {
			r, ok := nearBound(rng, target, decode)
			if !ok {
				continue
			}
			if agree(t, a, r, withReference) {
				edgeFast++
			} else {
				edgeSlow++
			}
		}
	}
	t.Logf("wide architectures: %d fast, %d big; near the bound: %d fast, %d big", fast, slow, edgeFast, edgeSlow)
	if min(fast, slow) < rounds/100 || min(edgeFast, edgeSlow) < rounds/10 {
		t.Errorf("too few inputs on one side of the bound: %d/%d fast/big, %d/%d near it", fast, slow, edgeFast, edgeSlow)
	}
}

// TestFastPathExactBound pins inputs on either side of attn·ctx2n's bound,
// in either phase: bit lengths adding up to 124 or 125 take the fast path,
// 126 or 127 the big one.
func TestFastPathExactBound(t *testing.T) {
	t.Parallel()
	// attn = 2·L·H·hd = 2^45 (L = hd = 2^22): a bit length of 46.
	a := Architecture{DModel: 1, Layers: 1 << 22, Heads: 1, HeadDim: 1 << 22, DFF: 1, MLP: MLPGated, Vocab: 1}
	p, err := Prepare(a)
	if err != nil || p.fast.attnBits != 46 {
		t.Fatalf("Prepare: %v, attnBits %d", err, p.fast.attnBits)
	}
	for _, sum := range []int{124, 125, 126, 127} {
		want := sum - p.fast.attnBits
		found := [2]bool{}
		// One request of x prompt tokens (ctx2n = x(x+1)) or of one prompt
		// token and x+1 outputs (ctx2n = x(x+1) + 2x): both near 2^want.
		x0 := int64(new(big.Int).Sqrt(new(big.Int).Lsh(big.NewInt(1), uint(want-1))).Uint64())
		for x := x0 - 3; x <= x0+3; x++ {
			for i, r := range []Request{{InputTokens: x}, {InputTokens: 1, OutputTokens: x + 1}} {
				pre, dec := ctxBits(bucketOf(r))
				if max(pre, dec) != want {
					continue
				}
				found[i] = true
				if got := agree(t, a, r, true); got != (sum <= 125) {
					t.Errorf("%+v (bit lengths %d + %d): fast path %v", r, p.fast.attnBits, want, got)
				}
			}
		}
		if !found[0] || !found[1] {
			t.Errorf("no request found with a %d-bit context sum in both phases", want)
		}
	}
}

// TestFastCoefficientsTooLarge: an architecture whose coefficients exceed
// the fast path's bound (not a valid one: Validate caps them far lower)
// sends everything to the big path.
func TestFastCoefficientsTooLarge(t *testing.T) {
	t.Parallel()
	huge := Architecture{DModel: 1 << 30, Layers: 1 << 30, Heads: 1, KVHeads: 1, HeadDim: 1 << 30, DFF: 1, MLP: MLPGated, Vocab: 1}
	f := fastCoefficientsOf(coefficientsOf(huge))
	if f.ok {
		t.Fatal("coefficients of 2^91 accepted by the fast path")
	}
	if _, _, ok := f.totals(bucketOf(Request{InputTokens: 1})); ok {
		t.Error("fast totals computed with coefficients out of bounds")
	}
}

func TestU128(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	toBig := func(x u128) *big.Int {
		z := new(big.Int).SetUint64(x.hi)
		return z.Lsh(z, 64).Or(z, new(big.Int).SetUint64(x.lo))
	}
	word := func() uint64 { return rng.Uint64() >> rng.IntN(65) }
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	for range 10000 {
		x, y := u128{word(), word()}, u128{word(), word()}
		k, d := word(), max(word(), 1)
		bx, by, bk := toBig(x), toBig(y), new(big.Int).SetUint64(k)
		if got, want := toBig(x.add(y)), new(big.Int).Add(bx, by); got.Cmp(want.Mod(want, mod)) != 0 {
			t.Fatalf("%v + %v = %s, want %s", x, y, got, want)
		}
		if got, want := toBig(x.sub(y)), new(big.Int).Sub(bx, by); got.Cmp(want.Mod(want, mod)) != 0 {
			t.Fatalf("%v − %v = %s, want %s", x, y, got, want)
		}
		if got, want := toBig(x.mul64(k)), new(big.Int).Mul(bx, bk); got.Cmp(want.Mod(want, mod)) != 0 {
			t.Fatalf("%v · %d = %s, want %s", x, k, got, want)
		}
		if got, want := toBig(mul64(x.lo, k)), new(big.Int).Mul(new(big.Int).SetUint64(x.lo), bk); got.Cmp(want) != 0 {
			t.Fatalf("%d · %d = %s, want %s", x.lo, k, got, want)
		}
		q, r := x.divmod(d)
		wq, wr := new(big.Int).QuoRem(bx, new(big.Int).SetUint64(d), new(big.Int))
		if toBig(q).Cmp(wq) != 0 || r != wr.Uint64() {
			t.Fatalf("%v / %d = %v rem %d, want %s rem %s", x, d, q, r, wq, wr)
		}
		if x.bitLen() != bx.BitLen() {
			t.Fatalf("bitLen(%v) = %d, want %d", x, x.bitLen(), bx.BitLen())
		}
		var w [words128]big.Word
		if got := setU128(new(big.Int), w[:], x); got.Cmp(bx) != 0 {
			t.Fatalf("setU128(%v) = %s, want %s", x, got, bx)
		}
	}
}

// TestEstimateIntsAreIndependent: the nineteen integers of an Estimate
// share one allocation, yet changing one in place, even so that it grows,
// leaves the others alone.
func TestEstimateIntsAreIndependent(t *testing.T) {
	t.Parallel()
	p, err := Prepare(mustLookup(t, "llama-3.1-70b").Architecture)
	if err != nil {
		t.Fatal(err)
	}
	r := Request{InputTokens: 3_000_000_000, CachedInputTokens: 1_000, OutputTokens: 70_000_000, Requests: 7}
	ints := func(e Estimate) []*big.Int {
		out := []*big.Int{e.Prefill, e.Decode, e.Total}
		for _, c := range componentOrder() {
			out = append(out, e.PrefillBreakdown[c], e.DecodeBreakdown[c])
		}
		return out
	}
	want, _ := p.Compute(r)
	for i := range ints(want) {
		e, _ := p.Compute(r)
		z := ints(e)[i]
		z.Add(z, z)
		z.Lsh(z, 300)
		z.Neg(z)
		for j, x := range ints(e) {
			if j != i && x.Cmp(ints(want)[j]) != 0 {
				t.Fatalf("changing integer %d changed integer %d: %s, was %s", i, j, x, ints(want)[j])
			}
		}
	}
}

func TestPreparedValidation(t *testing.T) {
	t.Parallel()
	if _, err := Prepare(Architecture{DModel: 8, Layers: 1, Heads: 3, DFF: 4, MLP: MLPGated, Vocab: 10}); err == nil {
		t.Error("Prepare accepted an invalid architecture")
	} else if f := fields(mustValidationError(t, err)); !f["head_dim"] || len(f) != 1 {
		t.Errorf("Prepare problems %v, want head_dim only", f)
	}
	p, err := Prepare(unit)
	if err != nil {
		t.Fatal(err)
	}
	bad := Request{InputTokens: 1, CachedInputTokens: 2, Requests: 2}
	_, err = p.Compute(bad)
	if f := fields(mustValidationError(t, err)); !f["cached_input_tokens"] || !f["input_tokens"] || len(f) != 2 {
		t.Errorf("Prepared.Compute problems %v", f)
	}
	if pre, dec, err := p.Totals(bad); err == nil || pre != nil || dec != nil {
		t.Errorf("Totals(%+v) = %v, %v, %v; want an error", bad, pre, dec, err)
	}
	if pre, dec, err := p.Totals(Request{InputTokens: 5, Requests: 4}); err != nil || pre.Int64() != 101 || dec.Sign() != 0 {
		t.Errorf("Totals = %v, %v, %v; want 101, 0 (TestComputeByHand)", pre, dec, err)
	}
}

func mustValidationError(t *testing.T, err error) ValidationError {
	t.Helper()
	var ve ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v is not a ValidationError", err)
	}
	return ve
}

// TestPreparedConcurrent: one Prepared serves many goroutines (run with -race).
func TestPreparedConcurrent(t *testing.T) {
	t.Parallel()
	p, err := Prepare(mustLookup(t, "qwen1.5-moe-a2.7b").Architecture)
	if err != nil {
		t.Fatal(err)
	}
	reqs := []Request{
		{InputTokens: 1500, OutputTokens: 300},
		{InputTokens: 123_457, CachedInputTokens: 50_000, OutputTokens: 9_999, Requests: 97},
	}
	want := make([]Estimate, len(reqs))
	for i, r := range reqs {
		want[i], _ = p.Compute(r)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 200 {
				i := (g + k) % len(reqs)
				e, err := p.Compute(reqs[i])
				if err != nil {
					t.Error(err)
					return
				}
				if e.Total.Cmp(want[i].Total) != 0 || e.DecodeBreakdown[AttnScores].Cmp(want[i].DecodeBreakdown[AttnScores]) != 0 {
					t.Errorf("goroutine %d: %s, want %s", g, e.Total, want[i].Total)
				}
			}
		})
	}
	wg.Wait()
}

// TestCatalogAlwaysFast: every catalogued model takes the fast path for the
// largest valid requests, as Prepared.Compute's documentation says.
func TestCatalogAlwaysFast(t *testing.T) {
	t.Parallel()
	for _, m := range Catalog() {
		for _, r := range []Request{
			{InputTokens: MaxTokens, OutputTokens: MaxTokens},
			{InputTokens: MaxTokens, CachedInputTokens: MaxTokens, OutputTokens: MaxTokens, Requests: 3},
			{InputTokens: 1, OutputTokens: MaxTokens},
		} {
			if !agree(t, m.Architecture, r, true) {
				t.Errorf("%s: %+v took the big path", m.Name, r)
			}
		}
	}
}
