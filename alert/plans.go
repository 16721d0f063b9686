package alert

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

// Plans are the plans alert costs are priced under. A nil plan is left
// out of every cost, and Missing says why (not configured, not found, of
// the wrong kind).
type Plans struct {
	RequestName string
	Request     *billing.Plan
	FLOPsName   string
	FLOPs       *billing.Plan
	Missing     []string
}

// newCost starts a Cost with the plans' names and their missing notes.
func (p Plans) newCost(method string) Cost {
	return Cost{RequestPlan: p.RequestName, FLOPsPlan: p.FLOPsName, Method: method, Missing: slices.Clone(p.Missing)}
}

// note adds a reason to c.Missing once.
func (c *Cost) note(format string, a ...any) {
	m := fmt.Sprintf(format, a...)
	if !slices.Contains(c.Missing, m) {
		c.Missing = append(c.Missing, m)
	}
}

// requestVersion returns the request plan's version in force on day; ok
// is false (and c notes why) when there is none.
func (p Plans) requestVersion(c *Cost, day time.Time) (billing.Version, bool) {
	if p.Request == nil {
		return billing.Version{}, false
	}
	v, ok := p.Request.VersionAt(day)
	if !ok {
		c.note("request plan %q has no version in force on %s", p.RequestName, day.UTC().Format(time.DateOnly))
	}
	return v, ok
}

// inputPrice returns model's price per million uncached input tokens in
// request-plan version v; ok is false (and c notes why) when there is none.
func (p Plans) inputPrice(c *Cost, v billing.Version, model string) (decimal.Decimal, bool) {
	prices, ok := v.PricesFor(model)
	if !ok {
		c.note("model %q has no price (and no default) in request plan %q; its part is left out", model, p.RequestName)
		return decimal.Decimal{}, false
	}
	return prices.InputPerMTok, true
}

// flopsPrices returns the FLOPs plan's prices per TFLOP on day; ok is
// false (and c notes why) when there are none.
func (p Plans) flopsPrices(c *Cost, day time.Time) (prefill, decode decimal.Decimal, ok bool) {
	if p.FLOPs == nil {
		return decimal.Decimal{}, decimal.Decimal{}, false
	}
	v, ok := p.FLOPs.VersionAt(day)
	if !ok {
		c.note("FLOPs plan %q has no version in force on %s", p.FLOPsName, day.UTC().Format(time.DateOnly))
		return decimal.Decimal{}, decimal.Decimal{}, false
	}
	return v.PrefillPerTFLOP, v.DecodePerTFLOP, true
}

// requestBill prices rows under the request plan, each by the version in
// force on its day, exactly. Rows it cannot price are left out (and c
// notes why); ok is false when it priced none.
func (p Plans) requestBill(c *Cost, rows []report.Rollup) (*big.Rat, bool) {
	if p.Request == nil {
		return nil, false
	}
	sum, priced := new(big.Rat), false
	for _, r := range rows {
		u := r.Usage()
		cost, err := p.Request.Price(u, r.Day.Time())
		switch {
		case errors.Is(err, billing.ErrUnpriced):
			c.note("model %q has no price (and no default) in request plan %q; its part is left out", r.Model, p.RequestName)
			continue
		case errors.Is(err, billing.ErrNoVersion):
			c.note("request plan %q has no version in force on %s; that day is left out", p.RequestName, r.Day)
			continue
		case err != nil:
			c.note("%s %s on %s cannot be priced: %v", r.Workload, r.Model, r.Day, err)
			continue
		}
		sum, priced = add(sum, rat(cost)), true
	}
	return sum, priced
}

// decimalPtr returns a pointer to d, for the optional amounts of Cost.
func decimalPtr(d decimal.Decimal) *decimal.Decimal { return &d }
