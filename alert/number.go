package alert

import (
	"encoding/json"
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// The arithmetic of shares and means runs on big.Rat, exactly, and is
// rounded once at the end: counts and FLOPs to a whole unit, money to
// MoneyPlaces places, both half away from zero.

// rat returns d as an exact rational.
func rat(d decimal.Decimal) *big.Rat { return d.Rat() }

// ratInt returns n as a rational.
func ratInt(n int64) *big.Rat { return new(big.Rat).SetInt64(n) }

// mul, sub and quo are big.Rat's operations returning a new value, so that
// formulas read as formulas.
func mul(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
func sub(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
func add(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
func quo(a, b *big.Rat) *big.Rat { return new(big.Rat).Quo(a, b) }

// roundRat rounds r to the nearest integer, halves away from zero.
func roundRat(r *big.Rat) *big.Int {
	return decimal.NewFromBigRat(r, 0).BigInt()
}

// number writes an integer as an exact JSON number.
func number(i *big.Int) json.Number { return json.Number(i.String()) }

// money returns r in dollars rounded to MoneyPlaces places.
func money(r *big.Rat) decimal.Decimal { return decimal.NewFromBigRat(r, MoneyPlaces) }

// ratio returns a/b rounded half up to 4 places, for Evidence.Observed.
func ratio(a, b *big.Rat) decimal.Decimal { return decimal.NewFromBigRat(quo(a, b), 4) }

// perTera is 10^12, the FLOPs in a TFLOP; perMega is 10^6, the tokens in a
// price's million.
var (
	perTera = ratInt(1_000_000_000_000)
	perMega = ratInt(1_000_000)
)

// fmtInt writes n with thousands separators.
func fmtInt(n int64) string { return billing.Thousands(big.NewInt(n).String()) }

// fmtDec writes d rounded half away from zero to places, with thousands
// separators.
func fmtDec(d decimal.Decimal, places int32) string { return billing.Thousands(d.StringFixed(places)) }

// fmtPercent writes a share as a percentage with two places: 0.075 →
// "7.50%".
func fmtPercent(share decimal.Decimal) string { return share.Shift(2).StringFixed(2) + "%" }

// fmtTimes writes a multiple: 2 → "2×", 2.5 → "2.5×".
func fmtTimes(d decimal.Decimal) string { return plain(d) + "×" }

// plain writes d with no trailing zeros and no exponent, whatever
// shopspring/decimal's global settings say.
func plain(d decimal.Decimal) string {
	places := -d.Normalize().Exponent()
	if places < 0 {
		places = 0
	}
	return d.StringFixed(places)
}
