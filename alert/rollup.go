package alert

import (
	"cmp"
	"math/big"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/report"
)

// workloadDays is one workload's rollup rows of the evaluated day and of
// its baseline.
type workloadDays struct {
	day, base []report.Rollup
}

// split sorts the rows of [Baseline(day).Start, day.End) by workload and
// by window; other rows are ignored.
func split(rows []report.Rollup, day Window) map[string]*workloadDays {
	base := Baseline(day)
	out := map[string]*workloadDays{}
	for _, r := range rows {
		t := r.Day.Time()
		if !base.Contains(t) && !day.Contains(t) {
			continue
		}
		w := out[r.Workload]
		if w == nil {
			w = &workloadDays{}
			out[r.Workload] = w
		}
		if day.Contains(t) {
			w.day = append(w.day, r)
		} else {
			w.base = append(w.base, r)
		}
	}
	return out
}

// sums are the totals of some rollup rows.
type sums struct {
	records, requests, input, bloat, bloatInput int64
	prefill, decode                             decimal.Decimal
}

func total(rows []report.Rollup) sums {
	var s sums
	for _, r := range rows {
		s.records += r.Records
		s.requests += r.Requests
		s.input += r.InputTokens
		s.bloat += r.BloatTokens
		s.bloatInput += r.BloatInputTokens
		s.prefill = s.prefill.Add(r.PrefillFLOPs)
		s.decode = s.decode.Add(r.DecodeFLOPs)
	}
	return s
}

func (s sums) flops() decimal.Decimal { return s.prefill.Add(s.decode) }

// topGrowth is how many models, and how many tag values, a fix names.
const topGrowth = 3

// growth returns the models and the tag values (grouping tags, as the
// rollups keep them) whose measure grew most from the baseline daily mean
// to the day: up to topGrowth of each, models first, only those that grew,
// largest growth first (ties by name, so the text is stable).
func growth(day, base []report.Rollup, measure func(report.Rollup) decimal.Decimal) []Growth {
	type key struct{ by, value string }
	type acc struct{ day, base decimal.Decimal }
	accs := map[key]*acc{}
	add := func(r report.Rollup, inDay bool) {
		keys := []key{{"model", r.Model}}
		for k, v := range r.Tags {
			keys = append(keys, key{"tag:" + k, v})
		}
		m := measure(r)
		for _, k := range keys {
			a := accs[k]
			if a == nil {
				a = &acc{}
				accs[k] = a
			}
			if inDay {
				a.day = a.day.Add(m)
			} else {
				a.base = a.base.Add(m)
			}
		}
	}
	for _, r := range day {
		add(r, true)
	}
	for _, r := range base {
		add(r, false)
	}
	type grown struct {
		key
		mean, growth *big.Rat
		day          decimal.Decimal
	}
	var models, tags []grown
	for k, a := range accs {
		mean := quo(rat(a.base), ratInt(BaselineDays))
		g := grown{key: k, mean: mean, growth: sub(rat(a.day), mean), day: a.day}
		if g.growth.Sign() <= 0 {
			continue
		}
		if k.by == "model" {
			models = append(models, g)
		} else {
			tags = append(tags, g)
		}
	}
	order := func(a, b grown) int {
		if c := b.growth.Cmp(a.growth); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.by, b.by), cmp.Compare(a.value, b.value))
	}
	out := []Growth{}
	for _, gs := range [][]grown{models, tags} {
		slices.SortFunc(gs, order)
		for _, g := range gs[:min(len(gs), topGrowth)] {
			out = append(out, Growth{By: g.by, Value: g.value, Window: number(g.day.BigInt()),
				BaselineDailyMean: number(roundRat(g.mean)), Growth: number(roundRat(g.growth))})
		}
	}
	return out
}

func inputTokens(r report.Rollup) decimal.Decimal { return decimal.NewFromInt(r.InputTokens) }

func rowFLOPs(r report.Rollup) decimal.Decimal { return r.PrefillFLOPs.Add(r.DecodeFLOPs) }
