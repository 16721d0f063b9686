package estimator

import (
	"bytes"
	"math/big"
)

// siUnits returns the FLOPs units, 10^3 apart (a fresh array: no global).
func siUnits() [9]string {
	return [...]string{"FLOPs", "kFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs", "EFLOPs", "ZFLOPs", "YFLOPs"}
}

// HumanFLOPs renders an exact FLOPs count for people: three significant
// digits and an SI prefix, e.g. 2312000000000 → "2.31 TFLOPs". Digits are
// rounded half away from zero on the exact value (no float on the way), so
// the figure shown is the exact count's nearest. Counts below 1000 are shown
// whole; counts beyond the YFLOPs range keep the largest prefix.
//
// It works on the decimal digits rather than with big.Int division: the
// estimate API formats three figures per request, and this is its hot path.
func HumanFLOPs(n *big.Int) string {
	if n == nil {
		return "0 FLOPs"
	}
	var buf [48]byte
	digits := AppendInt(buf[:0], n)
	sign := ""
	if n.Sign() < 0 {
		sign, digits = "-", digits[1:]
	}
	return sign + humanDigits(digits)
}

// humanDigits formats a non-negative count given as its decimal digits
// (no leading zeros). It may change digits in place.
func humanDigits(digits []byte) string {
	units := siUnits()
	if len(digits) <= 3 {
		return string(digits) + " " + units[0]
	}
	unit := min((len(digits)-1)/3, len(units)-1)
	// value = digits / 10^(3·unit), shown with (3 − integer digits) decimals.
	intDigits := len(digits) - 3*unit
	decimals := max(3-intDigits, 0)
	keep := intDigits + decimals
	shown := digits[:keep]
	if digits[keep] >= '5' { // the first dropped digit decides: half rounds up
		i := keep - 1
		for ; i >= 0 && shown[i] == '9'; i-- {
			shown[i] = '0'
		}
		if i >= 0 {
			shown[i]++
		} else {
			// 999.5 → 1000: the value is exactly 10^len(digits).
			if unit < len(units)-1 {
				return humanDigits(append([]byte{'1'}, bytes.Repeat([]byte{'0'}, len(digits))...))
			}
			shown = append([]byte{'1'}, shown...)
		}
	}
	out := make([]byte, 0, len(shown)+2+len(units[unit]))
	out = append(out, shown[:len(shown)-decimals]...)
	if decimals > 0 {
		out = append(out, '.')
		out = append(out, shown[len(shown)-decimals:]...)
	}
	out = append(out, ' ')
	out = append(out, units[unit]...)
	return string(out)
}
