package alert

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/report"
)

// bloatMethod says how a whitespace_bloat cost is computed.
const bloatMethod = "request plan: the bloat tokens at each model's uncached input price (exact); " +
	"FLOPs: each model row's prefill FLOPs × bloat tokens / input tokens, a linear share rounded half up " +
	"to a whole FLOP (attention grows faster than linearly with prompt length, so the true share is somewhat larger), " +
	"priced at the FLOPs plan's prefill price (exact); all for the window's day"

// bloatFix is the normalisation of MISSION.md ("Prompt bloat").
const bloatFix = "Normalise prompts before sending them: trim the whole prompt, strip trailing spaces and tabs at each line end, " +
	"and collapse every run of blank or whitespace-only lines to a single blank line; keep leading indentation, which carries meaning in code."

// maxBloatModels bounds the models listed in the evidence.
const maxBloatModels = 5

// bloatAlert decides whitespace_bloat for one workload's day: it fires when
// the floors hold and bloat tokens ≥ Share × the input tokens whose bloat
// is known, compared exactly.
func bloatAlert(workload string, win Window, day []report.Rollup, r BloatRule, p Plans) (Alert, bool) {
	s := total(day)
	if s.bloatInput <= 0 || s.bloatInput < r.MinInputTokens || s.records < r.MinRecords {
		return Alert{}, false
	}
	if decimal.NewFromInt(s.bloat).LessThan(r.Share.Mul(decimal.NewFromInt(s.bloatInput))) {
		return Alert{}, false
	}
	ev := Evidence{
		Window:    win,
		Threshold: r.Share,
		Observed:  ratio(ratInt(s.bloat), ratInt(s.bloatInput)),
		Bloat:     &BloatEvidence{BloatTokens: s.bloat, BloatInputTokens: s.bloatInput, Records: s.records, Models: bloatByModel(day)},
	}
	sentence := fmt.Sprintf("Workload %s sent %s of its analysed prompt tokens as redundant whitespace on %s "+
		"(%s of %s tokens; the threshold is %s).",
		workload, fmtPercent(ev.Observed), win.label(), fmtInt(s.bloat), fmtInt(s.bloatInput), fmtPercent(r.Share))
	fix := bloatFix + fmt.Sprintf(" That removes about %s input tokens a day", fmtInt(s.bloat))
	if ms := ev.Bloat.Models; len(ms) > 0 {
		parts := make([]string, len(ms))
		for i, m := range ms {
			parts[i] = fmt.Sprintf("%s: %s", m.Model, fmtInt(m.BloatTokens))
		}
		fix += " (" + strings.Join(parts, ", ") + ")"
	}
	fix += "."
	return Alert{Workload: workload, Kind: WhitespaceBloat, WindowStart: win.Start, WindowEnd: win.End,
		Sentence: sentence, Evidence: ev, Cost: bloatCost(win, day, p), Fix: fix}, true
}

// bloatByModel sums the day's bloat per model, largest first.
func bloatByModel(day []report.Rollup) []ModelBloat {
	by := map[string]*ModelBloat{}
	for _, r := range day {
		if r.BloatTokens <= 0 && r.BloatInputTokens <= 0 {
			continue
		}
		m := by[r.Model]
		if m == nil {
			m = &ModelBloat{Model: r.Model}
			by[r.Model] = m
		}
		m.BloatTokens += r.BloatTokens
		m.BloatInputTokens += r.BloatInputTokens
	}
	out := []ModelBloat{}
	for _, m := range by {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b ModelBloat) int {
		return cmp.Or(cmp.Compare(b.BloatTokens, a.BloatTokens), cmp.Compare(a.Model, b.Model))
	})
	return out[:min(len(out), maxBloatModels)]
}

// bloatCost prices the day's bloat tokens (see bloatMethod).
func bloatCost(win Window, day []report.Rollup, p Plans) Cost {
	c := p.newCost(bloatMethod)
	flops := new(big.Rat)
	request := decimal.Zero
	v, requestOK := p.requestVersion(&c, win.Start)
	priced := false
	for _, r := range day {
		if r.BloatTokens <= 0 {
			continue
		}
		if r.InputTokens > 0 {
			flops = add(flops, quo(mul(rat(r.PrefillFLOPs), ratInt(r.BloatTokens)), ratInt(r.InputTokens)))
		}
		if !requestOK {
			continue
		}
		if price, ok := p.inputPrice(&c, v, r.Model); ok {
			request = request.Add(price.Mul(decimal.NewFromInt(r.BloatTokens)).Shift(-6))
			priced = true
		}
	}
	f := roundRat(flops)
	c.FLOPs = number(f)
	if priced {
		c.RequestCost = decimalPtr(request)
	}
	if pre, _, ok := p.flopsPrices(&c, win.Start); ok {
		c.FLOPsCost = decimalPtr(pre.Mul(decimal.NewFromBigInt(f, 0)).Shift(-12))
	}
	return c
}
