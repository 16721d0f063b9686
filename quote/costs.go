package quote

import (
	"context"
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// Plans lists the price plans (the store).
type Plans interface {
	Plans(ctx context.Context) ([]billing.Plan, error)
}

// Cost is what an estimate costs under one plan, by the version in force
// today. Cost is exact (full precision); Error says why there is none (no
// price for the model, no version yet).
type Cost struct {
	Plan          string           `json:"plan"`
	Kind          billing.Kind     `json:"kind"`
	EffectiveFrom *billing.Date    `json:"effective_from,omitempty"`
	Cost          *decimal.Decimal `json:"cost,omitempty"`
	Error         string           `json:"error,omitempty"`
}

// costs prices the estimate under every plan; the request plans look the
// model up by its name (an inline architecture takes their default price).
func costs(ctx context.Context, plans Plans, now time.Time, res Result) ([]Cost, error) {
	ps, err := plans.Plans(ctx)
	if err != nil {
		return nil, err
	}
	u := billing.Usage{Model: res.Model, Requests: res.Requests, InputTokens: res.InputTokens, CachedInputTokens: res.CachedInputTokens,
		OutputTokens: res.OutputTokens, PrefillFLOPs: decimal.NewFromBigInt(res.PrefillFLOPs, 0), DecodeFLOPs: decimal.NewFromBigInt(res.DecodeFLOPs, 0)}
	out := make([]Cost, 0, len(ps))
	for _, p := range ps {
		c := Cost{Plan: p.Name, Kind: p.Kind}
		v, ok := p.VersionAt(now)
		if !ok {
			c.Error = "no version in force today"
			out = append(out, c)
			continue
		}
		c.EffectiveFrom = &v.EffectiveFrom
		var amount decimal.Decimal
		if p.Kind == billing.KindRequest {
			var rc billing.RequestCost
			rc, err = v.PriceRequest(u)
			amount = rc.Total()
		} else {
			var fc billing.FLOPsCost
			fc, err = v.PriceFLOPs(u)
			amount = fc.Total()
		}
		switch {
		case errors.Is(err, billing.ErrUnpriced):
			c.Error = "no price for this model (and no default) in this plan"
		case err != nil:
			c.Error = err.Error()
		default:
			c.Cost = &amount
		}
		out = append(out, c)
	}
	return out, nil
}
