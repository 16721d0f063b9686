package billing

import (
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Errors of pricing; match them with errors.Is.
var (
	// ErrUnpriced: the request-plan version has neither an entry for the
	// usage's model nor a default entry.
	ErrUnpriced = errors.New("billing: model has no price in this plan version")
	// ErrNoVersion: the usage occurred before the plan's first version.
	ErrNoVersion = errors.New("billing: no plan version in force at that time")
	// ErrKind: a version was asked for prices of the other kind of plan.
	ErrKind = errors.New("billing: wrong kind of plan version")
)

// RequestCost is what a request plan charges for a Usage, in dollars, by
// component, at full precision (no rounding).
type RequestCost struct {
	PerRequest  decimal.Decimal // per_request × requests
	Input       decimal.Decimal // input_per_mtok × uncached input tokens / 10^6
	CachedInput decimal.Decimal // cached_input_per_mtok × cached input tokens / 10^6
	Output      decimal.Decimal // output_per_mtok × output tokens / 10^6
}

// Total is the sum of the components.
func (c RequestCost) Total() decimal.Decimal {
	return c.PerRequest.Add(c.Input).Add(c.CachedInput).Add(c.Output)
}

// FLOPsCost is what a FLOPs plan charges for a Usage, in dollars, by phase,
// at full precision (no rounding).
type FLOPsCost struct {
	Prefill decimal.Decimal // prefill_per_tflop × prefill FLOPs / 10^12
	Decode  decimal.Decimal // decode_per_tflop × decode FLOPs / 10^12
}

// Total is the sum of the phases.
func (c FLOPsCost) Total() decimal.Decimal { return c.Prefill.Add(c.Decode) }

// PriceRequest prices u under request-plan version v, with the prices for
// u.Model (PricesFor). It fails with ErrKind for a FLOPs version, ErrUnpriced
// for a model without prices, or a ValidationError for an invalid u.
//
// InputTokens includes the cached tokens (MISSION.md, "Tokens in a usage
// record"), so the uncached part is InputTokens − CachedInputTokens: charging
// the input price on all of InputTokens and the cached price on top would
// bill the cached tokens twice, the most common cost bug in this field.
//
// The division by 10^6 is a decimal shift, so the result is exact.
func (v Version) PriceRequest(u Usage) (RequestCost, error) {
	if v.Kind != KindRequest {
		return RequestCost{}, fmt.Errorf("%w: %q version has no request prices", ErrKind, v.Kind)
	}
	if err := u.Validate(); err != nil {
		return RequestCost{}, err
	}
	p, ok := v.PricesFor(u.Model)
	if !ok {
		return RequestCost{}, fmt.Errorf("%w: model %q, version from %s", ErrUnpriced, u.Model, v.EffectiveFrom)
	}
	uncached := decimal.NewFromInt(u.InputTokens - u.CachedInputTokens)
	return RequestCost{
		PerRequest:  p.PerRequest.Mul(decimal.NewFromInt(u.Requests)),
		Input:       p.InputPerMTok.Mul(uncached).Shift(-6),
		CachedInput: p.CachedInput().Mul(decimal.NewFromInt(u.CachedInputTokens)).Shift(-6),
		Output:      p.OutputPerMTok.Mul(decimal.NewFromInt(u.OutputTokens)).Shift(-6),
	}, nil
}

// PriceFLOPs prices u under FLOPs-plan version v. It fails with ErrKind for
// a request version, or a ValidationError for an invalid u. The model plays
// no part: a FLOP costs the same whichever model spends it.
//
// The division by 10^12 is a decimal shift, so the result is exact.
func (v Version) PriceFLOPs(u Usage) (FLOPsCost, error) {
	if v.Kind != KindFLOPs {
		return FLOPsCost{}, fmt.Errorf("%w: %q version has no FLOPs prices", ErrKind, v.Kind)
	}
	if err := u.Validate(); err != nil {
		return FLOPsCost{}, err
	}
	return FLOPsCost{
		Prefill: v.PrefillPerTFLOP.Mul(u.PrefillFLOPs).Shift(-12),
		Decode:  v.DecodePerTFLOP.Mul(u.DecodeFLOPs).Shift(-12),
	}, nil
}

// Price is the total cost of u, in dollars at full precision, under the
// version of p in force on the UTC day of at (the time the usage
// occurred). It fails with ErrNoVersion before p's first version, and as
// PriceRequest and PriceFLOPs do.
func (p Plan) Price(u Usage, at time.Time) (decimal.Decimal, error) {
	v, ok := p.VersionAt(at)
	if !ok {
		return decimal.Decimal{}, fmt.Errorf("%w: plan %q at %s", ErrNoVersion, p.Name, at.UTC().Format(time.RFC3339))
	}
	switch v.Kind {
	case KindRequest:
		c, err := v.PriceRequest(u)
		return c.Total(), err
	case KindFLOPs:
		c, err := v.PriceFLOPs(u)
		return c.Total(), err
	}
	return decimal.Decimal{}, fmt.Errorf("%w: %q", ErrKind, v.Kind)
}
