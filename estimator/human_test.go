package estimator

import (
	"math/big"
	"testing"
)

func TestHumanFLOPs(t *testing.T) {
	t.Parallel()
	big10 := func(s string) *big.Int { n, _ := new(big.Int).SetString(s, 10); return n }
	cases := []struct {
		name string
		in   *big.Int
		want string
	}{
		{"zero", big.NewInt(0), "0 FLOPs"},
		{"below a thousand", big.NewInt(999), "999 FLOPs"},
		{"exact kilo", big.NewInt(1000), "1.00 kFLOPs"},
		{"three significant digits", big10("2312000000000"), "2.31 TFLOPs"},
		{"half rounds up", big10("2315000000000"), "2.32 TFLOPs"},
		{"just below half rounds down", big10("2314999999999"), "2.31 TFLOPs"},
		{"two integer digits", big10("45678000000"), "45.7 GFLOPs"},
		{"three integer digits", big10("456789000000000"), "457 TFLOPs"},
		{"carry into the next unit", big10("999500000000"), "1.00 TFLOPs"},
		{"exa", big10("1230000000000000000"), "1.23 EFLOPs"},
		{"beyond yotta keeps the largest prefix", big10("12345000000000000000000000000"), "12345 YFLOPs"},
		{"negative", big.NewInt(-1500), "-1.50 kFLOPs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := HumanFLOPs(tc.in); got != tc.want {
				t.Fatalf("HumanFLOPs(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
