package store

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestSum128MatchesBigInt: the 128-bit sums of the rollups agree with
// math/big, also past int64 and with negative terms.
func TestSum128MatchesBigInt(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		var s sum128
		want := new(big.Int)
		for range 1 + rng.IntN(5000) {
			v := rng.Int64()
			switch rng.IntN(4) {
			case 0:
				v = math.MaxInt64
			case 1:
				v = -v
			}
			s.add(v)
			want.Add(want, big.NewInt(v))
		}
		if s.String() != want.String() {
			t.Fatalf("trial %d: sum128 = %s, big = %s", trial, s.String(), want)
		}
	}
}
