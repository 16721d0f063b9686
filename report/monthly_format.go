package report

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
)

// Display formatting of the monthly report (HTML and Summary). Money is
// shown to the cent by billing.FormatMoney, rounding half away from zero;
// percentages to one place, the same way. Nothing here feeds a sum.

// none stands for a figure that is undefined (a percentage of zero).
const none = "—"

// plain writes d exactly, in plain notation without trailing zeros ("0.3",
// "15", "0.0000125"), whatever shopspring/decimal's global settings say.
func plain(d decimal.Decimal) string {
	return d.StringFixed(max(-d.Normalize().Exponent(), 0))
}

// count writes n with thousands separators.
func count(n int64) string { return billing.Thousands(strconv.FormatInt(n, 10)) }

// money writes d in dollars to the cent: "$1,234.57", "-$0.50". An amount
// that is not zero but rounds to zero is "<$0.01" ("-<$0.01"), so that a
// small cost does not read as none.
func money(d decimal.Decimal) string {
	s := billing.FormatMoney(d, 2)
	switch {
	case s == "0.00" && d.IsNegative():
		return "-<$0.01"
	case s == "0.00" && d.IsPositive():
		return "<$0.01"
	case strings.HasPrefix(s, "-"):
		return "-$" + billing.Thousands(s[1:])
	}
	return "$" + billing.Thousands(s)
}

// signedMoney is money with a sign on every amount but zero: "+$3.42",
// "-$2.30", "+<$0.01", "$0.00".
func signedMoney(d decimal.Decimal) string {
	s := money(d)
	if d.IsPositive() {
		s = "+" + s
	}
	return s
}

// pct writes a level (used, share): "91.5%"; none for nil.
func pct(d *decimal.Decimal) string {
	if d == nil {
		return none
	}
	return billing.Thousands(billing.FormatMoney(*d, 1)) + "%"
}

// signedPct writes a change: "+120.9%", "-24.0%", "0.0%"; none for nil.
func signedPct(d *decimal.Decimal) string {
	s := pct(d)
	if d != nil && !strings.HasPrefix(s, "-") && strings.Trim(s, "0.%") != "" {
		s = "+" + s
	}
	return s
}

// share writes a fraction from 0 to 1 as a percentage: "97.1%".
func share(d *decimal.Decimal) string {
	if d == nil {
		return none
	}
	p := d.Shift(2)
	return pct(&p)
}

// flopsInt reads an exact FLOPs count (an integer, as BuildMonthly writes
// it); anything else reads as 0.
func flopsInt(n json.Number) *big.Int {
	i, ok := new(big.Int).SetString(n.String(), 10)
	if !ok {
		return new(big.Int)
	}
	return i
}

// flops writes a FLOPs count with an SI prefix: "343 PFLOPs".
func flops(n json.Number) string { return estimator.HumanFLOPs(flopsInt(n)) }

// flopsExact writes the exact count: "343,256,789,012,345,678 FLOPs".
func flopsExact(n json.Number) string { return billing.Thousands(flopsInt(n).String()) + " FLOPs" }

// perTFLOP writes a price per TFLOP to 4 significant digits, rounded half
// away from zero: "$0.00001751". It is a decision figure; the JSON has all
// its digits.
func perTFLOP(d *decimal.Decimal) string {
	if d == nil {
		return none
	}
	if d.IsZero() {
		return "$0"
	}
	// digits before the point (negative: zeros after it) of |d|
	c := d.Coefficient()
	mag := len(c.Abs(c).String()) + int(d.Exponent())
	places := int32(max(4-mag, 0))
	return "$" + billing.Thousands(d.StringFixed(places))
}

// ms writes a latency in milliseconds: "1,890 ms", "12.5 ms" (one place
// below 100 ms).
func ms(v float64) string {
	places := 1
	if v >= 100 {
		places = 0
	}
	return billing.Thousands(strconv.FormatFloat(v, 'f', places, 64)) + " ms"
}

// ratio writes the tail ratio: "4.5×".
func ratio(r *float64) string {
	if r == nil {
		return none
	}
	return strconv.FormatFloat(*r, 'f', -1, 64) + "×"
}
