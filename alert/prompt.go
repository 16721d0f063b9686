package alert

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

// promptMethod says how a prompt_inflation cost is computed.
const promptMethod = "extra input tokens E = (mean − baseline mean) × requests of the day, rounded half up; " +
	"request plan: E shared among the day's model rows by their input tokens, at each model's uncached input price " +
	"(rounded to 12 places); FLOPs: the day's prefill FLOPs × E / its input tokens, a linear share rounded half up " +
	"to a whole FLOP, priced at the FLOPs plan's prefill price (exact)"

// promptAlert decides prompt_inflation for one workload: it fires when the
// floors hold and the day's mean input tokens per request ≥ Factor × the
// baseline's, compared exactly as input_D × requests_B ≥ Factor × input_B ×
// requests_D.
func promptAlert(workload string, win Window, day, base []report.Rollup, r PromptRule, p Plans) (Alert, bool) {
	d, b := total(day), total(base)
	if d.requests <= 0 || d.requests < r.MinRequests || b.requests < r.MinBaselineRequests || b.requests <= 0 || b.input <= 0 {
		return Alert{}, false
	}
	lhs := decimal.NewFromInt(d.input).Mul(decimal.NewFromInt(b.requests))
	rhs := r.Factor.Mul(decimal.NewFromInt(b.input)).Mul(decimal.NewFromInt(d.requests))
	if lhs.LessThan(rhs) {
		return Alert{}, false
	}
	mean := quo(ratInt(d.input), ratInt(d.requests))
	baseMean := quo(ratInt(b.input), ratInt(b.requests))
	extra := roundRat(sub(ratInt(d.input), mul(baseMean, ratInt(d.requests))))
	baseline := Baseline(win)
	pe := &PromptEvidence{
		Requests: d.requests, InputTokens: d.input, MeanInputTokens: decimal.NewFromBigRat(mean, 2),
		BaselineRequests: b.requests, BaselineInputTokens: b.input, BaselineMean: decimal.NewFromBigRat(baseMean, 2),
		ExtraInputTokens: extra.Int64(), Growth: growth(day, base, inputTokens),
	}
	ev := Evidence{Window: win, Baseline: &baseline, Threshold: r.Factor, Observed: ratio(mean, baseMean), Prompt: pe}
	sentence := fmt.Sprintf("Workload %s's prompts averaged %s input tokens per request on %s, %s the mean of the %d days before "+
		"(%s; the threshold is %s).",
		workload, fmtDec(pe.MeanInputTokens, 2), win.label(), fmtTimes(ev.Observed), BaselineDays,
		fmtDec(pe.BaselineMean, 2), fmtTimes(r.Factor))
	fix := growthFix("Input tokens", "tokens", pe.Growth) +
		" Look at what those clients add to each prompt (retrieved context, conversation history, templates, attachments) " +
		"since the baseline week; trimming it back to the baseline mean saves about " + fmtInt(pe.ExtraInputTokens) + " input tokens a day."
	return Alert{Workload: workload, Kind: PromptInflation, WindowStart: win.Start, WindowEnd: win.End,
		Sentence: sentence, Evidence: ev, Cost: promptCost(win, day, d, extra, p), Fix: fix}, true
}

// promptCost prices the extra input tokens (see promptMethod).
func promptCost(win Window, day []report.Rollup, d sums, extra *big.Int, p Plans) Cost {
	c := p.newCost(promptMethod)
	e := new(big.Rat).SetInt(extra)
	flops := roundRat(quo(mul(rat(d.prefill), e), ratInt(d.input)))
	c.FLOPs = number(flops)
	if v, ok := p.requestVersion(&c, win.Start); ok {
		request, priced := new(big.Rat), false
		for _, r := range day {
			if r.InputTokens <= 0 {
				continue
			}
			if price, ok := p.inputPrice(&c, v, r.Model); ok {
				share := quo(mul(e, ratInt(r.InputTokens)), ratInt(d.input))
				request = add(request, quo(mul(rat(price), share), perMega))
				priced = true
			}
		}
		if priced {
			c.RequestCost = decimalPtr(money(request))
		}
	}
	if pre, _, ok := p.flopsPrices(&c, win.Start); ok {
		c.FLOPsCost = decimalPtr(pre.Mul(decimal.NewFromBigInt(flops, 0)).Shift(-12))
	}
	return c
}

// growthFix names the models and tag values that grew most, with their
// numbers: "Input tokens grew most for model gpt-4o (+1,200,000 tokens a
// day: 300,000 → 1,500,000)".
func growthFix(what, unit string, gs []Growth) string {
	if len(gs) == 0 {
		return what + " grew across the workload, with no single model or tag value standing out."
	}
	parts := make([]string, len(gs))
	for i, g := range gs {
		name := "model " + g.Value
		if g.By != "model" {
			name = strings.TrimPrefix(g.By, "tag:") + "=" + g.Value
			name = "tag " + name
		}
		parts[i] = fmt.Sprintf("%s (+%s %s a day: %s → %s)", name, billing.Thousands(g.Growth.String()), unit,
			billing.Thousands(g.BaselineDailyMean.String()), billing.Thousands(g.Window.String()))
	}
	return what + " grew most for " + strings.Join(parts, ", ") + "."
}
