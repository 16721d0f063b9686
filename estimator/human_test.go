package estimator

import (
	"encoding/json"
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
