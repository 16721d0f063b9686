package demo

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
	"github.com/flopledger/flopledger/usage"
)

// figures are the priced usage of some records: their cost under the
// request plan and their FLOPs.
type figures struct {
	cost, flops decimal.Decimal
}

func (f figures) add(o figures) figures {
	return figures{cost: f.cost.Add(o.cost), flops: f.flops.Add(o.flops)}
}

// calibration is what a dry run of the generator measured: the totals of
// the priced records per workload and day index. The tariff and the
// budgets are set from it, so that they stay where they should (near
// revenue-neutral, at risk, exceeded) whatever the day Seed runs.
type calibration struct {
	daily map[string][]figures
}

// calibrate generates the data set without storing it and prices every
// record the way ingestion and the rollups will: FLOPs from the model's
// architecture (a stand-in from the model it stands in for), cost under
// plan. Records of the unregistered model have no FLOPs and are left out,
// as the rollups leave them out.
func calibrate(p period, plan billing.Plan) (calibration, error) {
	models := map[string]*estimator.Prepared{}
	c := calibration{daily: map[string][]figures{}}
	for _, w := range workloads {
		c.daily[w.name] = make([]figures, Days)
	}
	err := generate(p, func(r usage.Record) error {
		if r.Model == Unpriced {
			return nil
		}
		m, err := prepared(models, r.Model)
		if err != nil {
			return err
		}
		pre, dec, err := m.Totals(estimator.Request{InputTokens: r.InputTokens, CachedInputTokens: r.CachedInputTokens,
			OutputTokens: r.OutputTokens, Requests: r.Requests})
		if err != nil {
			return fmt.Errorf("demo: record %s: %w", r.ID, err)
		}
		u := billing.Usage{Model: r.Model, Requests: r.Requests, InputTokens: r.InputTokens, CachedInputTokens: r.CachedInputTokens,
			OutputTokens: r.OutputTokens, PrefillFLOPs: decimal.NewFromBigInt(pre, 0), DecodeFLOPs: decimal.NewFromBigInt(dec, 0)}
		cost, err := plan.Price(u, r.OccurredAt)
		if err != nil {
			return fmt.Errorf("demo: record %s: %w", r.ID, err)
		}
		f := figures{cost: cost, flops: u.PrefillFLOPs.Add(u.DecodeFLOPs)}
		d := int(r.OccurredAt.Sub(p.first).Hours()) / 24
		c.daily[r.Workload][d] = c.daily[r.Workload][d].add(f)
		return nil
	})
	return c, err
}

// prepared returns the prepared architecture of a catalog model or of the
// stand-in, once per model.
func prepared(cache map[string]*estimator.Prepared, name string) (*estimator.Prepared, error) {
	if m, ok := cache[name]; ok {
		return m, nil
	}
	arch := name
	if name == StandIn {
		arch = StandInFor
	}
	m, ok := estimator.Lookup(arch)
	if !ok {
		return nil, fmt.Errorf("demo: model %q is not in the catalog", arch)
	}
	pm, err := estimator.Prepare(m.Architecture)
	if err != nil {
		return nil, fmt.Errorf("demo: model %q: %w", arch, err)
	}
	cache[name] = pm
	return pm, nil
}

// tariff is the revenue-neutral price per TFLOP under the current request
// prices (from the price cut on): what the request plan earns, spread
// evenly over every FLOP, rounded to two significant digits. Workloads
// whose break-even price lies above it are cheaper under FLOPs billing,
// the others dearer.
func (c calibration) tariff() decimal.Decimal {
	var f figures
	for _, w := range workloads {
		f = f.add(c.sum(w.name, priceCutDay, Days))
	}
	return significant(f.cost.DivRound(f.flops.Shift(-12), 20), 2)
}

// sum adds up workload's figures over the day indexes [from, to).
func (c calibration) sum(workload string, from, to int) figures {
	var f figures
	for d := max(from, 0); d < min(to, Days); d++ {
		f = f.add(c.daily[workload][d])
	}
	return f
}
