package demo

import (
	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// The plans Seed creates; the alert configuration and the dashboard's
// defaults name them. A plan called RequestPlan marks a seeded database.
const (
	RequestPlan = "list-price"
	FLOPsPlan   = "flops-tariff"
)

// prices builds one model's request prices from dollar amounts per
// million tokens.
func prices(input, cached, output string) billing.RequestPrices {
	c := decimal.RequireFromString(cached)
	return billing.RequestPrices{InputPerMTok: decimal.RequireFromString(input), CachedInputPerMTok: &c,
		OutputPerMTok: decimal.RequireFromString(output)}
}

// requestPlan is a provider-style list price: a frontier-class default
// ($3 input, $0.30 cached, $15 output per million tokens) that prices the
// large and hosted models, cheaper entries for the small ones (roughly in
// proportion to their active parameters, so that the comparison shows the
// workloads' shapes rather than the models' sizes), and a cut of the
// default mid-period.
func requestPlan(p period) billing.Plan {
	small := map[string]billing.RequestPrices{
		"llama-3.1-8b":  prices("0.30", "0.03", "1.50"),
		"llama-3.2-3b":  prices("0.10", "0.01", "0.50"),
		"mixtral-8x7b":  prices("0.45", "0.045", "0.70"),
		"qwen3-30b-a3b": prices("0.15", "0.015", "0.75"),
	}
	version := func(from billing.Date, def billing.RequestPrices) billing.Version {
		m := map[string]billing.RequestPrices{billing.DefaultModel: def}
		for k, v := range small {
			m[k] = v
		}
		return billing.NewRequestVersion(from, m)
	}
	return billing.Plan{Name: RequestPlan, Kind: billing.KindRequest, Versions: []billing.Version{
		version(planStart(p), prices("3", "0.30", "15")),
		version(billing.DateOf(p.day(priceCutDay)), prices("2.50", "0.25", "12.50")),
	}}
}

// flopsPlan is one price per TFLOP for prefill and decode alike, in force
// over the whole period.
func flopsPlan(p period, perTFLOP decimal.Decimal) billing.Plan {
	return billing.Plan{Name: FLOPsPlan, Kind: billing.KindFLOPs, Versions: []billing.Version{
		billing.NewFLOPsVersion(planStart(p), perTFLOP, perTFLOP),
	}}
}

// planStart is the first of the month of the first day: price lists start
// on round dates, before the data.
func planStart(p period) billing.Date {
	return billing.NewDate(p.first.Year(), p.first.Month(), 1)
}

// significant rounds a positive d half away from zero to n significant
// digits: a tariff or a budget that people write down has few digits.
func significant(d decimal.Decimal, n int32) decimal.Decimal {
	if !d.IsPositive() {
		return d
	}
	// shift moves d's first significant digit to the units place.
	shift := int32(0)
	for d.Shift(shift).LessThan(decimal.NewFromInt(1)) {
		shift++
	}
	for d.Shift(shift).GreaterThanOrEqual(decimal.NewFromInt(10)) {
		shift--
	}
	return d.Round(shift + n - 1)
}
