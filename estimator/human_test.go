package estimator

import (
	"encoding/json"
	"math/big"
	"math/rand"
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

func TestBreakdownJSONOrderAndExactness(t *testing.T) {
	t.Parallel()
	huge, _ := new(big.Int).SetString("18138975835764817920123", 10)
	b := Breakdown{QProj: big.NewInt(1), KVProj: big.NewInt(2), AttnScores: huge, AttnValues: big.NewInt(4),
		OutProj: big.NewInt(5), MLP: big.NewInt(6), Router: big.NewInt(0)} // lm_head missing: written as 0
	got, err := b.MarshalJSON()
	want := `{"q_proj":1,"kv_proj":2,"attn_scores":18138975835764817920123,"attn_values":4,"out_proj":5,"mlp":6,"router":0,"lm_head":0}`
	if err != nil || string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	var back Breakdown
	if err := json.Unmarshal(got, &back); err != nil || back[AttnScores].Cmp(huge) != 0 {
		t.Fatalf("round trip: %v %v", back, err)
	}
}

// humanByDivision is HumanFLOPs as first written, with big.Int division:
// the reference the digit-based version must agree with.
func humanByDivision(n *big.Int) string {
	if n.Sign() < 0 {
		return "-" + humanByDivision(new(big.Int).Neg(n))
	}
	if n.Cmp(big.NewInt(1000)) < 0 {
		return n.String() + " FLOPs"
	}
	units := siUnits()
	digits := len(n.String())
	unit := min((digits-1)/3, len(units)-1)
	intDigits := digits - 3*unit
	decimals := max(3-intDigits, 0)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(3*unit-decimals)), nil)
	q, r := new(big.Int).QuoRem(n, scale, new(big.Int))
	if new(big.Int).Lsh(r, 1).Cmp(scale) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if len(q.String()) > intDigits+decimals && unit < len(units)-1 {
		return humanByDivision(new(big.Int).Mul(q, scale))
	}
	s := q.String()
	if decimals > 0 {
		s = s[:len(s)-decimals] + "." + s[len(s)-decimals:]
	}
	return s + " " + units[unit]
}

// TestHumanFLOPsAgreesWithDivision checks the digit-based formatting
// against exact division on values around every rounding edge: each
// length from 1 to 32 digits, with 9s that carry and 5s that round up.
func TestHumanFLOPsAgreesWithDivision(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	var values []*big.Int
	for length := 1; length <= 32; length++ {
		for _, pattern := range []string{"9", "5", "4", "1", "0"} {
			s := "9"
			for len(s) < length {
				s += pattern
			}
			n, _ := new(big.Int).SetString(s[:length], 10)
			values = append(values, n, new(big.Int).Add(n, big.NewInt(1)), new(big.Int).Sub(n, big.NewInt(1)))
		}
		for range 50 {
			n := new(big.Int).Rand(rng, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(length)), nil))
			values = append(values, n, new(big.Int).Neg(n))
		}
	}
	for _, n := range values {
		if got, want := HumanFLOPs(n), humanByDivision(n); got != want {
			t.Fatalf("HumanFLOPs(%s) = %q, division gives %q", n, got, want)
		}
	}
}
