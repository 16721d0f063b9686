package billing

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Limits on a price in a plan, so that a typo or a hostile body cannot ask
// for absurd arithmetic. A price carries at most MaxPricePlaces decimal
// places (trailing zeros do not count) and is at most MaxPrice dollars per
// unit. 18 places leave about 13 significant digits to a per-TFLOP price of
// the order of 10^-5 dollars, and equal BreakEvenPlaces, so that a break-even
// or revenue-neutral price can be entered as a plan price unchanged.
const (
	MaxPricePlaces = 18
	// maxAmountLength bounds a price string before it is parsed: 10 integer
	// digits, a point and 18 places fit with room for leading zeros.
	maxAmountLength = 64
)

// MaxPrice is the largest price a plan accepts, in dollars per unit
// (request, million tokens or TFLOP): 10^9.
var MaxPrice = decimal.New(1, 9)

// parseAmount reads a price as it appears inside a JSON string: an optional
// minus sign, digits, and optionally a point followed by digits ("0.3",
// "15", "-1"). Exponents ("1e5"), a leading "+" or ".", spaces, "NaN" and
// "Inf" are rejected: a price list is written in plain notation, and an
// exponent would let "1e-999999999" through to the arithmetic. A negative
// amount parses; Validate reports it, with the rest of the rules.
func parseAmount(s string) (decimal.Decimal, error) {
	if len(s) > maxAmountLength {
		return decimal.Decimal{}, fmt.Errorf("is %d characters long; the limit is %d", len(s), maxAmountLength)
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	intDigits := digits(s[i:])
	i += intDigits
	ok := intDigits > 0
	if ok && i < len(s) && s[i] == '.' {
		frac := digits(s[i+1:])
		ok = frac > 0
		i += 1 + frac
	}
	if !ok || i != len(s) {
		return decimal.Decimal{}, fmt.Errorf("must be a plain decimal number such as \"0.3\", not %q", s)
	}
	return decimal.NewFromString(s)
}

// digits counts the leading ASCII digits of s.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// checkPrice reports what is wrong with a price: negative, above MaxPrice,
// or more than MaxPricePlaces decimal places.
func checkPrice(ps *problems, field string, d decimal.Decimal) {
	switch {
	case d.IsNegative():
		ps.add(field, "must not be negative")
	case d.GreaterThan(MaxPrice):
		ps.add(field, "must be at most %s", plain(MaxPrice))
	case !d.Equal(d.Truncate(MaxPricePlaces)):
		ps.add(field, "has more than %d decimal places", MaxPricePlaces)
	}
}

// plain writes d in plain notation with no trailing zeros ("0.3", "15",
// "0.00002"), whatever shopspring/decimal's global formatting settings say.
// It is how every amount goes out in JSON.
func plain(d decimal.Decimal) string {
	places := -d.Normalize().Exponent()
	if places < 0 {
		places = 0
	}
	return d.StringFixed(places)
}

// FormatMoney writes d for display with exactly places decimal places
// (negative places count as 0), rounding half away from zero: 0.125 at 2
// places is "0.13", -0.125 is "-0.13". It adds no currency sign and no
// thousands separator, and never writes "-0.00": an amount that rounds to
// zero is "0.00". It also suits other display figures (percentages,
// shares). Rounding here is for display only; stored and summed amounts keep
// their full precision.
func FormatMoney(d decimal.Decimal, places int32) string {
	if places < 0 {
		places = 0
	}
	return d.StringFixed(places)
}

// Thousands puts commas between the thousands of the integer part of a
// plain decimal number, for display: "-1234567.5" → "-1,234,567.5". The
// sign and the fraction are kept as they are.
func Thousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return b.String()
}
