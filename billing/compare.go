package billing

import (
	"github.com/shopspring/decimal"
)

// Precisions of the comparison figures. These are display and decision
// figures (which workloads win or lose, at what price the plans break
// even), never invoiced amounts; each is rounded once, half away from zero
// (decimal.DivRound), from exact inputs.
const (
	// DeltaPctPlaces: delta_pct is a percentage with 4 decimal places
	// (12.3457 means 12.3457 %).
	DeltaPctPlaces = 4
	// BreakEvenPlaces: break-even and revenue-neutral prices are dollars per
	// TFLOP with 18 decimal places, about 13 significant digits at the
	// 10^-5 $/TFLOP of today's prices; a plan accepts that many places
	// (MaxPricePlaces), so the figure can be entered as a price unchanged.
	BreakEvenPlaces = 18
	// SharePlaces: prefill share is a fraction from 0 to 1 with 6 decimal
	// places.
	SharePlaces = 6
)

// Group is a set of usage priced under both plans (a workload, a model, or
// everything): sums of its records' costs in dollars, each record priced
// by the versions in force when it occurred, and of its FLOPs.
type Group struct {
	Key          string
	RequestCost  decimal.Decimal
	FLOPsCost    decimal.Decimal
	PrefillFLOPs decimal.Decimal
	DecodeFLOPs  decimal.Decimal
}

// Comparison is a Group's two bills side by side. Money and FLOPs are
// exact; the pointer fields are rounded figures (see the precisions above)
// and nil where they are undefined.
type Comparison struct {
	Key          string
	RequestCost  decimal.Decimal
	FLOPsCost    decimal.Decimal
	Delta        decimal.Decimal // FLOPsCost − RequestCost: negative when FLOPs billing is cheaper
	PrefillFLOPs decimal.Decimal
	DecodeFLOPs  decimal.Decimal
	TotalFLOPs   decimal.Decimal
	// DeltaPct is Delta / RequestCost × 100, DeltaPctPlaces places; nil when
	// RequestCost is 0.
	DeltaPct *decimal.Decimal
	// BreakEvenPerTFLOP is the one price per TFLOP, for prefill and decode
	// alike, at which this group's FLOPs bill equals its request bill:
	// RequestCost / (TotalFLOPs / 10^12), BreakEvenPlaces places; nil with
	// no FLOPs. For the total of all groups it is the revenue-neutral price.
	BreakEvenPerTFLOP *decimal.Decimal
	// PrefillShare is PrefillFLOPs / TotalFLOPs, SharePlaces places; nil
	// with no FLOPs.
	PrefillShare *decimal.Decimal
}

// Compare sets a group's two bills side by side.
func Compare(g Group) Comparison {
	total := g.PrefillFLOPs.Add(g.DecodeFLOPs)
	c := Comparison{
		Key:          g.Key,
		RequestCost:  g.RequestCost,
		FLOPsCost:    g.FLOPsCost,
		Delta:        g.FLOPsCost.Sub(g.RequestCost),
		PrefillFLOPs: g.PrefillFLOPs,
		DecodeFLOPs:  g.DecodeFLOPs,
		TotalFLOPs:   total,
	}
	if !g.RequestCost.IsZero() {
		pct := c.Delta.Mul(decimal.NewFromInt(100)).DivRound(g.RequestCost, DeltaPctPlaces)
		c.DeltaPct = &pct
	}
	if price, ok := BreakEvenPerTFLOP(g.RequestCost, total); ok {
		c.BreakEvenPerTFLOP = &price
	}
	if !total.IsZero() {
		share := g.PrefillFLOPs.DivRound(total, SharePlaces)
		c.PrefillShare = &share
	}
	return c
}

// CompareAll compares each group, in the given order, and their total,
// whose Key is "" and whose BreakEvenPerTFLOP is the revenue-neutral price.
func CompareAll(groups []Group) (rows []Comparison, total Comparison) {
	rows = make([]Comparison, len(groups))
	for i, g := range groups {
		rows[i] = Compare(g)
	}
	return rows, Compare(Sum(groups))
}

// Sum adds groups up into one with an empty Key.
func Sum(groups []Group) Group {
	var s Group
	for _, g := range groups {
		s.RequestCost = s.RequestCost.Add(g.RequestCost)
		s.FLOPsCost = s.FLOPsCost.Add(g.FLOPsCost)
		s.PrefillFLOPs = s.PrefillFLOPs.Add(g.PrefillFLOPs)
		s.DecodeFLOPs = s.DecodeFLOPs.Add(g.DecodeFLOPs)
	}
	return s
}

// BreakEvenPerTFLOP is the price per TFLOP at which flops FLOPs cost
// requestCost dollars: requestCost / (flops / 10^12), in dollars per TFLOP,
// rounded to BreakEvenPlaces places half away from zero. ok is false when
// flops is not positive. It is a decision figure, not an invoiced amount.
func BreakEvenPerTFLOP(requestCost, flops decimal.Decimal) (decimal.Decimal, bool) {
	if !flops.IsPositive() {
		return decimal.Decimal{}, false
	}
	// requestCost / (flops·10^-12) = requestCost·10^12 / flops, exactly.
	return requestCost.Shift(12).DivRound(flops, BreakEvenPlaces), true
}

// RevenueNeutralPerTFLOP is the single price per TFLOP, for prefill and
// decode alike, at which all groups together pay under FLOPs billing what
// they pay under request billing: total request cost / (total FLOPs /
// 10^12), as BreakEvenPerTFLOP rounds it. ok is false when the groups have
// no FLOPs.
func RevenueNeutralPerTFLOP(groups []Group) (decimal.Decimal, bool) {
	s := Sum(groups)
	return BreakEvenPerTFLOP(s.RequestCost, s.PrefillFLOPs.Add(s.DecodeFLOPs))
}
