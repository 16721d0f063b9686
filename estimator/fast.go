package estimator

import (
	"math/big"
	"math/bits"
)

// The fast path evaluates the convention in 128-bit machine arithmetic.
// Its bounds, decided before any arithmetic so that nothing needs an
// overflow check:
//
//   - token counts are at most MaxTokens < 2^50 (checked at compile time
//     below), so n, I, Ce, Dt, 2n, I+n and Dt+n fit in uint64, and the
//     scaled context sums ctx2n of the two phases are below 2^102;
//   - the coefficients are below 2^coefBits (checked by Prepare; a valid
//     architecture's are below 2^52 since MaxParams caps them), so every
//     coefficient × tokens product is below 2^112 and a phase's whole parts
//     add up to less than 2^114;
//   - attn·ctx2n is below 2^fastBits when the bit lengths of its factors add
//     up to at most fastBits (checked per request), so the two attention
//     parts, 2·attn·ctx2n/2n, are below 2^125, a phase is below
//     2^125 + 2^114 < 2^126, and prefill + decode below 2^127.
const (
	coefBits = 62
	fastBits = 125
)

// A compile error here means MaxTokens outgrew the bounds above.
const _ = uint64(1<<50 - MaxTokens)

// fastCoefficients are the coefficients as uint64; ok is false when one of
// them does not fit the fast path's bound, which sends every request of the
// architecture to the big path.
type fastCoefficients struct {
	ok                                bool
	q, kv, out, attn, mlp, router, lm uint64
	linear                            uint64 // q + kv + out + mlp + router: FLOPs per processed token outside attention
	attnBits                          int
}

func fastCoefficientsOf(c coefficients) fastCoefficients {
	linear := new(big.Int).Add(c.q, c.kv)
	linear.Add(linear, c.out).Add(linear, c.mlp).Add(linear, c.router)
	for _, x := range [...]*big.Int{c.q, c.kv, c.out, c.attn, c.mlp, c.router, c.lmHead, linear} {
		if x.BitLen() > coefBits {
			return fastCoefficients{}
		}
	}
	return fastCoefficients{
		ok: true,
		q:  c.q.Uint64(), kv: c.kv.Uint64(), out: c.out.Uint64(), attn: c.attn.Uint64(),
		mlp: c.mlp.Uint64(), router: c.router.Uint64(), lm: c.lmHead.Uint64(),
		linear:   linear.Uint64(),
		attnBits: c.attn.BitLen(),
	}
}

// fastPhase is one phase of the bucket, exactly. Every component but the
// two attention ones is a whole number of FLOPs (coefficient × tokens, or
// lm × heads), because its scaled value is a multiple of den = 2n. The
// attention components are equal, attn·ctx2n/den each: attnFloor is its
// floor, and extra (0, 1 or 2) is how many units rounding the phase adds.
type fastPhase struct {
	tokens, heads uint64
	attnFloor     u128
	extra         uint64
}

// phase returns false when attn·ctx2n might not fit in 2^fastBits.
//
// It is the big path's apportionment specialised to that shape. With
// attn·ctx2n = attnFloor·den + rem (0 ≤ rem < den), the phase's exact value
// is whole parts + 2·attnFloor + 2·rem/den, which rounds half up to whole
// parts + 2·attnFloor + floor((2·rem + n)/den); that last term is extra, 2
// when 2·rem ≥ 3n, 1 when 2·rem ≥ n, else 0. Every other remainder is 0 and
// the attention ones are equal, so the largest remainders with ties in
// component order are attn_scores' then attn_values': the first missing
// unit goes to attn_scores, the second to attn_values.
func (f *fastCoefficients) phase(tokens, heads uint64, ctx2n u128, n uint64) (fastPhase, bool) {
	if f.attnBits+ctx2n.bitLen() > fastBits {
		return fastPhase{}, false
	}
	q, rem := ctx2n.mul64(f.attn).divmod(2 * n)
	ph := fastPhase{tokens: tokens, heads: heads, attnFloor: q}
	switch {
	case 2*rem >= 3*n:
		ph.extra = 2
	case 2*rem >= n:
		ph.extra = 1
	}
	return ph, true
}

// phases computes the bucket's prefill and decode (doc.go's closed forms).
func (f *fastCoefficients) phases(b bucket) (prefill, decode fastPhase, ok bool) {
	if !f.ok {
		return prefill, decode, false
	}
	// Prefill: I − Ce tokens; ctx2n = I(I+n) − Ce(Ce+n); n lm_head evaluations.
	ctx := mul64(b.in, b.in+b.n).sub(mul64(b.cached, b.cached+b.n))
	if prefill, ok = f.phase(b.in-b.cached, b.n, ctx, b.n); !ok {
		return prefill, decode, false
	}
	// Decode: Dt steps; ctx2n = Dt(Dt+n) + 2·Dt·I; one lm_head per step.
	ctx = mul64(b.steps, b.steps+b.n).add(mul64(b.steps, 2*b.in))
	decode, ok = f.phase(b.steps, b.steps, ctx, b.n)
	return prefill, decode, ok
}

// total is the phase's figure: its exact value rounded half up.
func (f *fastCoefficients) total(ph fastPhase) u128 {
	t := mul64(f.linear, ph.tokens).add(mul64(f.lm, ph.heads))
	return t.add(ph.attnFloor).add(ph.attnFloor).add(u128{lo: ph.extra})
}

// breakdown lists the phase's components in componentOrder.
func (f *fastCoefficients) breakdown(ph fastPhase) [8]u128 {
	scores, values := ph.attnFloor, ph.attnFloor
	if ph.extra > 0 {
		scores = scores.add(u128{lo: 1})
	}
	if ph.extra > 1 {
		values = values.add(u128{lo: 1})
	}
	return [8]u128{
		mul64(f.q, ph.tokens), mul64(f.kv, ph.tokens), scores, values,
		mul64(f.out, ph.tokens), mul64(f.mlp, ph.tokens), mul64(f.router, ph.tokens),
		mul64(f.lm, ph.heads),
	}
}

func (f *fastCoefficients) totals(b bucket) (prefill, decode u128, ok bool) {
	pre, dec, ok := f.phases(b)
	if !ok {
		return prefill, decode, false
	}
	return f.total(pre), f.total(dec), true
}

func (f *fastCoefficients) estimate(b bucket) (Estimate, bool) {
	pre, dec, ok := f.phases(b)
	if !ok {
		return Estimate{}, false
	}
	v := new(estimateValues)
	set := func(i int, x u128) {
		setU128(&v.ints[i], v.words[i*words128:(i+1)*words128:(i+1)*words128], x)
	}
	for i, x := range f.breakdown(pre) {
		set(prefillAt+i, x)
	}
	for i, x := range f.breakdown(dec) {
		set(decodeAt+i, x)
	}
	tp, td := f.total(pre), f.total(dec)
	set(prefillTotalAt, tp)
	set(decodeTotalAt, td)
	set(totalAt, tp.add(td))
	return v.estimate(), true
}

// u128 is an unsigned 128-bit integer. Its arithmetic wraps silently: the
// fast path's bounds make sure it never has to.
type u128 struct{ hi, lo uint64 }

func mul64(x, y uint64) u128 {
	hi, lo := bits.Mul64(x, y)
	return u128{hi, lo}
}

func (x u128) add(y u128) u128 {
	lo, carry := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, carry)
	return u128{hi, lo}
}

func (x u128) sub(y u128) u128 {
	lo, borrow := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, borrow)
	return u128{hi, lo}
}

func (x u128) mul64(y uint64) u128 {
	hi, lo := bits.Mul64(x.lo, y)
	return u128{hi + x.hi*y, lo}
}

// divmod divides by d > 0 in two steps, as bits.Div64 needs a quotient that
// fits in 64 bits.
func (x u128) divmod(d uint64) (u128, uint64) {
	qhi, r := bits.Div64(0, x.hi, d)
	qlo, r := bits.Div64(r, x.lo, d)
	return u128{qhi, qlo}, r
}

func (x u128) bitLen() int {
	if x.hi != 0 {
		return 64 + bits.Len64(x.hi)
	}
	return bits.Len64(x.lo)
}

// words128 is how many big.Words hold a u128 (2, or 4 on 32-bit platforms).
const words128 = 128 / bits.UintSize

// setU128 sets z to x using w (words128 long, capacity words128) as its
// storage, so that building the nineteen integers of an Estimate costs one
// allocation instead of nineteen. That is what big.Int.SetBits is for; the
// capacity limit makes a later operation on z that needs more room
// allocate rather than write into its neighbour's words.
func setU128(z *big.Int, w []big.Word, x u128) *big.Int {
	for i := range w {
		if s := uint(i * bits.UintSize); s < 64 {
			w[i] = big.Word(x.lo >> s)
		} else {
			w[i] = big.Word(x.hi >> (s - 64))
		}
	}
	return z.SetBits(w)
}
