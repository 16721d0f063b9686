package billing

import (
	"testing"

	"github.com/shopspring/decimal"
)

// d reads a decimal literal in a test table.
func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// ptr returns a pointer to a decimal literal.
func ptr(s string) *decimal.Decimal {
	v := d(s)
	return &v
}

// day returns a Date for a test table.
func day(t *testing.T, s string) Date {
	t.Helper()
	v, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// listPrice is the request plan of the examples: $3/M input, $0.30/M cached
// input, $15/M output for every model.
func listPrice(t *testing.T) Plan {
	t.Helper()
	return Plan{Name: "list-price", Kind: KindRequest, Versions: []Version{
		NewRequestVersion(day(t, "2026-01-01"), map[string]RequestPrices{
			DefaultModel: {PerRequest: d("0"), InputPerMTok: d("3"), CachedInputPerMTok: ptr("0.3"), OutputPerMTok: d("15")},
		}),
	}}
}

// equalDecimal compares an expected and an actual decimal, exactly.
func equalDecimal(t *testing.T, what string, want, got decimal.Decimal) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}
