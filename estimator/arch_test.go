package estimator

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestProduct: product's uint64 shortcut gives the exact product, negative
// and overflowing factors included.
func TestProduct(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	picks := []int64{0, 1, 2, 3, -1, -7, MaxDimension, math.MaxInt64, math.MinInt64, 1 << 32, 1<<31 - 1}
	for range 5000 {
		factors := make([]int64, rng.IntN(7))
		for i := range factors {
			if rng.IntN(2) == 0 {
				factors[i] = picks[rng.IntN(len(picks))]
			} else {
				factors[i] = rng.Int64N(1<<(1+rng.IntN(62))) - rng.Int64N(2)
			}
		}
		want := big.NewInt(1)
		for _, x := range factors {
			want.Mul(want, big.NewInt(x))
		}
		if got := product(factors...); got.Cmp(want) != 0 {
			t.Fatalf("product(%v) = %s, want %s", factors, got, want)
		}
	}
}
