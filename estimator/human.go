package estimator

import (
	"fmt"
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
func HumanFLOPs(n *big.Int) string {
	if n == nil {
		return "0 FLOPs"
	}
	if n.Sign() < 0 {
		return "-" + HumanFLOPs(new(big.Int).Neg(n))
	}
	if n.Cmp(big.NewInt(1000)) < 0 {
		return n.String() + " FLOPs"
	}
	units := siUnits()
	digits := len(n.String())
	unit := min((digits-1)/3, len(units)-1)
	// value = n / 10^(3·unit), shown with (3 − integer digits) decimals.
	intDigits := digits - 3*unit
	decimals := max(3-intDigits, 0)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(3*unit-decimals)), nil)
	q, r := new(big.Int).QuoRem(n, scale, new(big.Int))
	if new(big.Int).Lsh(r, 1).Cmp(scale) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	// Rounding can carry into a new digit (999.5 → 1000): go up a unit.
	if len(q.String()) > intDigits+decimals && unit < len(units)-1 {
		return HumanFLOPs(new(big.Int).Mul(q, scale))
	}
	s := q.String()
	if decimals > 0 {
		s = s[:len(s)-decimals] + "." + s[len(s)-decimals:]
	}
	return fmt.Sprintf("%s %s", s, units[unit])
}
