package billing

import (
	"errors"
	"testing"
	"time"
)

func TestPriceRequest(t *testing.T) {
	t.Parallel()
	v := NewRequestVersion(day(t, "2026-01-01"), map[string]RequestPrices{
		DefaultModel: {InputPerMTok: d("3"), CachedInputPerMTok: ptr("0.3"), OutputPerMTok: d("15")},
		// No cached price: cached tokens cost the input price.
		"no-cache-discount": {PerRequest: d("0.001"), InputPerMTok: d("2.5"), OutputPerMTok: d("10")},
		// A cached price of zero is a price, not an absence.
		"free-cache": {InputPerMTok: d("1"), CachedInputPerMTok: ptr("0"), OutputPerMTok: d("2")},
	})
	for _, tc := range []struct {
		name                                   string
		u                                      Usage
		perRequest, input, cachedInput, output string
	}{
		{
			name: "default entry, no cache hit",
			u:    Usage{Model: "unlisted", Requests: 1, InputTokens: 150, OutputTokens: 400},
			// 150 × 3/10^6; 400 × 15/10^6
			perRequest: "0", input: "0.00045", cachedInput: "0", output: "0.006",
		},
		{
			name: "cached tokens at the cached price, excluded from the uncached input",
			u:    Usage{Model: "unlisted", Requests: 1, InputTokens: 10_000, CachedInputTokens: 8_000, OutputTokens: 100},
			// (10,000 − 8,000) × 3/10^6; 8,000 × 0.3/10^6; 100 × 15/10^6
			perRequest: "0", input: "0.006", cachedInput: "0.0024", output: "0.0015",
		},
		{
			name:       "everything cached",
			u:          Usage{Model: "unlisted", Requests: 1, InputTokens: 1_000, CachedInputTokens: 1_000},
			perRequest: "0", input: "0", cachedInput: "0.0003", output: "0",
		},
		{
			name: "model's own entry, cached price defaults to the input price",
			u:    Usage{Model: "no-cache-discount", Requests: 3, InputTokens: 10_000, CachedInputTokens: 8_000, OutputTokens: 100},
			// 3 × 0.001; 2,000 × 2.5/10^6; 8,000 × 2.5/10^6; 100 × 10/10^6
			perRequest: "0.003", input: "0.005", cachedInput: "0.02", output: "0.001",
		},
		{
			name:       "zero cached price",
			u:          Usage{Model: "free-cache", Requests: 1, InputTokens: 5_000, CachedInputTokens: 4_000, OutputTokens: 1},
			perRequest: "0", input: "0.001", cachedInput: "0", output: "0.000002",
		},
		{
			name: "fractions of a micro-dollar are kept",
			u:    Usage{Model: "unlisted", Requests: 1, InputTokens: 1, CachedInputTokens: 1, OutputTokens: 1},
			// 1 × 0.3/10^6 = 3·10^-7; 1 × 15/10^6
			perRequest: "0", input: "0", cachedInput: "0.0000003", output: "0.000015",
		},
		{
			name:       "a rollup past a billion requests",
			u:          Usage{Model: "unlisted", Requests: 2_000_000_000, InputTokens: 4_000_000_000_000_000, CachedInputTokens: 1_000_000_000_000_000, OutputTokens: 7},
			perRequest: "0", input: "9000000000", cachedInput: "300000000", output: "0.000105",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := v.PriceRequest(tc.u)
			if err != nil {
				t.Fatal(err)
			}
			equalDecimal(t, "per request", d(tc.perRequest), c.PerRequest)
			equalDecimal(t, "input", d(tc.input), c.Input)
			equalDecimal(t, "cached input", d(tc.cachedInput), c.CachedInput)
			equalDecimal(t, "output", d(tc.output), c.Output)
			equalDecimal(t, "total", d(tc.perRequest).Add(d(tc.input)).Add(d(tc.cachedInput)).Add(d(tc.output)), c.Total())
		})
	}
}

func TestModelPrices(t *testing.T) {
	t.Parallel()
	withDefault := NewRequestVersion(day(t, "2026-01-01"), map[string]RequestPrices{
		DefaultModel: {InputPerMTok: d("3"), OutputPerMTok: d("15")},
		"gpt-4o":     {InputPerMTok: d("2.5"), OutputPerMTok: d("10")},
	})
	noDefault := NewRequestVersion(day(t, "2026-01-01"), map[string]RequestPrices{
		"gpt-4o": {InputPerMTok: d("2.5"), OutputPerMTok: d("10")},
	})
	u := func(model string) Usage {
		return Usage{Model: model, Requests: 1, InputTokens: 1_000_000, OutputTokens: 1_000_000}
	}
	for _, tc := range []struct {
		name    string
		v       Version
		model   string
		want    string
		wantErr error
	}{
		{"model's own entry", withDefault, "gpt-4o", "12.5", nil},
		{"default for a model without one", withDefault, "llama-3.1-8b", "18", nil},
		{"names are exact", withDefault, "GPT-4o", "18", nil},
		{"model's own entry without a default", noDefault, "gpt-4o", "12.5", nil},
		{"no entry and no default", noDefault, "llama-3.1-8b", "", ErrUnpriced},
		{"a FLOPs version has no request prices", NewFLOPsVersion(day(t, "2026-01-01"), d("1"), d("1")), "gpt-4o", "", ErrKind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := tc.v.PriceRequest(u(tc.model))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if err == nil {
				equalDecimal(t, "total", d(tc.want), c.Total())
			}
		})
	}
}

func TestPriceFLOPs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                    string
		prefillPrice, decode    string
		u                       Usage
		wantPrefill, wantDecode string
	}{
		{
			name: "same price for both phases", prefillPrice: "0.00002", decode: "0.00002",
			u:           Usage{PrefillFLOPs: d("1500000000000"), DecodeFLOPs: d("250000000000")}, // 1.5 and 0.25 TFLOPs
			wantPrefill: "0.00003", wantDecode: "0.000005",
		},
		{
			name: "decode dearer than prefill", prefillPrice: "0.00001", decode: "0.00004",
			u:           Usage{PrefillFLOPs: d("2000000000000"), DecodeFLOPs: d("2000000000000")},
			wantPrefill: "0.00002", wantDecode: "0.00008",
		},
		{
			name: "one FLOP keeps every digit", prefillPrice: "0.00002", decode: "0.00003",
			u:           Usage{PrefillFLOPs: d("1"), DecodeFLOPs: d("1")},
			wantPrefill: "0.00000000000000002", wantDecode: "0.00000000000000003",
		},
		{
			name: "FLOPs beyond int64", prefillPrice: "0.00002", decode: "0.00002",
			u:           Usage{PrefillFLOPs: d("123456789012345678901234567"), DecodeFLOPs: d("0")},
			wantPrefill: "2469135780.24691357802469134", wantDecode: "0",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := NewFLOPsVersion(day(t, "2026-01-01"), d(tc.prefillPrice), d(tc.decode))
			c, err := v.PriceFLOPs(tc.u)
			if err != nil {
				t.Fatal(err)
			}
			equalDecimal(t, "prefill", d(tc.wantPrefill), c.Prefill)
			equalDecimal(t, "decode", d(tc.wantDecode), c.Decode)
			equalDecimal(t, "total", d(tc.wantPrefill).Add(d(tc.wantDecode)), c.Total())
		})
	}
	if _, err := listPrice(t).Versions[0].PriceFLOPs(Usage{}); !errors.Is(err, ErrKind) {
		t.Errorf("FLOPs price of a request version: error %v, want ErrKind", err)
	}
}

func TestPriceInvalidUsage(t *testing.T) {
	t.Parallel()
	req := listPrice(t)
	flops := Plan{Name: "t", Kind: KindFLOPs, Versions: []Version{NewFLOPsVersion(day(t, "2026-01-01"), d("1"), d("1"))}}
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		plan   Plan
		u      Usage
		fields []string
	}{
		{"negative counts", req, Usage{Requests: -1, InputTokens: -1, CachedInputTokens: -1, OutputTokens: -1},
			[]string{"requests", "input_tokens", "cached_input_tokens", "output_tokens"}},
		{"more cached than input", req, Usage{Requests: 1, InputTokens: 10, CachedInputTokens: 11}, []string{"cached_input_tokens"}},
		{"negative and fractional FLOPs", flops, Usage{PrefillFLOPs: d("-1"), DecodeFLOPs: d("0.5")}, []string{"prefill_flops", "decode_flops"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.plan.Price(tc.u, at)
			var ve ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error = %v, want a ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Field)
			}
			if len(got) != len(tc.fields) {
				t.Fatalf("fields = %v, want %v", got, tc.fields)
			}
			for i := range got {
				if got[i] != tc.fields[i] {
					t.Fatalf("fields = %v, want %v", got, tc.fields)
				}
			}
		})
	}
}
