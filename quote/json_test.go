package quote

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
)

// plainResult is Result without its methods: encoding/json's own encoding,
// the reference the hand-written one must equal byte for byte.
type plainResult Result

// TestResultJSONMatchesEncodingJSON compares Result's own encoding with
// encoding/json's on real estimates (tokens, a padded prompt, a bucket) and
// on the awkward cases: names needing escapes, invalid UTF-8, missing
// values, costs with and without an amount.
func TestResultJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	svc := New(catalog.New(nil), bloat.NewCounter())
	ptr := func(n int64) *int64 { return &n }
	prompt := "Summarise the ticket below.   \n\n\n\nCustomer: <my> invoice & \"bill\" are wrong  \n\n\n"
	var results []Result
	for _, req := range []Request{
		{Model: "llama-3.1-8b", InputTokens: ptr(1500), OutputTokens: ptr(300)},
		{Model: "qwen3-30b-a3b", InputTokens: ptr(97_000), CachedInputTokens: 500, OutputTokens: ptr(9_700), Requests: ptr(97)},
		{Model: "llama-3.1-405b", Prompt: &prompt, OutputTokens: ptr(20)},
		{Model: "gpt2", Prompt: &prompt, Tokenizer: "cl100k_base", OutputTokens: ptr(1)},
	} {
		res, err := svc.Estimate(context.Background(), req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		results = append(results, res)
	}
	day := billing.NewDate(2026, 1, 1)
	amount := decimal.RequireFromString("0.000123456789012345678")
	odd := results[0]
	odd.Model, odd.ModelSource, odd.ModelVersion = "<modèle & \"co\">\x01\xff\u2028", "x<y", 3
	odd.Costs = []Cost{
		{Plan: "p>q", Kind: billing.KindRequest, EffectiveFrom: &day, Cost: &amount},
		{Plan: "r&s", Kind: billing.KindFLOPs}, {Plan: "tarif/été", Kind: billing.KindFLOPs, Error: "no version in force today"},
	}
	empty := Result{Bloat: &Bloat{}}
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	big := results[2]
	big.TotalFLOPs = huge
	big.Breakdown.Decode = estimator.Breakdown{estimator.MLP: huge}
	results = append(results, odd, empty, Result{}, big)

	for i, r := range results {
		want, err := json.Marshal(plainResult(r))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(r) // through MarshalJSON
		if err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
		if string(got) != string(want) {
			t.Errorf("result %d:\n got %s\nwant %s", i, got, want)
		}
		if appended := r.AppendJSON([]byte("x")); string(appended[1:]) != string(want) {
			t.Errorf("result %d: AppendJSON wrote %s", i, appended[1:])
		}
	}
}
