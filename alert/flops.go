package alert

import (
	"fmt"
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/report"
)

// flopsMethod says how a flops_surge cost is computed.
const flopsMethod = "extra FLOPs X = the day's FLOPs − the baseline daily mean, rounded half up; " +
	"FLOPs plan: X split between prefill and decode as the day's FLOPs are, at the plan's prices (rounded to 12 places); " +
	"request plan: the day's bill minus the baseline's daily mean bill, every row priced by the version in force on its day " +
	"(rounded to 12 places)"

// flopsAlert decides flops_surge for one workload: it fires when the
// floors hold and the day's FLOPs ≥ Factor × the baseline daily mean,
// compared exactly as BaselineDays × FLOPs_D ≥ Factor × FLOPs_B.
func flopsAlert(workload string, win Window, day, base []report.Rollup, r FLOPsRule, p Plans) (Alert, bool) {
	d, b := total(day), total(base)
	days := decimal.NewFromInt(BaselineDays)
	fd, fb := d.flops(), b.flops()
	if d.requests < r.MinRequests || !fb.IsPositive() || fb.LessThan(r.MinBaselineDailyFLOPs.Mul(days)) {
		return Alert{}, false
	}
	if fd.Mul(days).LessThan(r.Factor.Mul(fb)) {
		return Alert{}, false
	}
	mean := quo(rat(fb), ratInt(BaselineDays))
	extra := roundRat(sub(rat(fd), mean))
	baseline := Baseline(win)
	fe := &FLOPsEvidence{
		Requests: d.requests, FLOPs: number(fd.BigInt()), PrefillFLOPs: number(d.prefill.BigInt()), DecodeFLOPs: number(d.decode.BigInt()),
		BaselineFLOPs: number(fb.BigInt()), BaselineDailyMean: number(roundRat(mean)), ExtraFLOPs: number(extra),
		Growth: growth(day, base, rowFLOPs),
	}
	ev := Evidence{Window: win, Baseline: &baseline, Threshold: r.Factor, Observed: ratio(rat(fd), mean), FLOPs: fe}
	sentence := fmt.Sprintf("Workload %s spent %s FLOPs on %s, %s its daily mean of the %d days before (%s; the threshold is %s).",
		workload, billing.Thousands(fe.FLOPs.String()), win.label(), fmtTimes(ev.Observed), BaselineDays,
		billing.Thousands(fe.BaselineDailyMean.String()), fmtTimes(r.Factor))
	fix := growthFix("FLOPs", "FLOPs", fe.Growth) +
		" Check those for a switch to a larger model, longer prompts or longer answers, or a retry loop; " +
		"the estimate API shows what one such request costs under each plan."
	return Alert{Workload: workload, Kind: FLOPsSurge, WindowStart: win.Start, WindowEnd: win.End,
		Sentence: sentence, Evidence: ev, Cost: flopsCost(win, day, base, d, extra, p), Fix: fix}, true
}

// flopsCost prices the FLOPs above the baseline (see flopsMethod).
func flopsCost(win Window, day, base []report.Rollup, d sums, extra *big.Int, p Plans) Cost {
	c := p.newCost(flopsMethod)
	c.FLOPs = number(extra)
	x := new(big.Rat).SetInt(extra)
	if pre, dec, ok := p.flopsPrices(&c, win.Start); ok {
		// X × (prefill_D × prefill price + decode_D × decode price) / FLOPs_D / 10^12
		blended := add(mul(rat(d.prefill), rat(pre)), mul(rat(d.decode), rat(dec)))
		c.FLOPsCost = decimalPtr(money(quo(mul(x, blended), mul(rat(d.flops()), perTera))))
	}
	// A baseline with nothing priced counts as a zero bill (and Missing
	// says why); a day with nothing priced has no figure to give.
	dayBill, ok := p.requestBill(&c, day)
	baseBill, _ := p.requestBill(&c, base)
	if ok {
		c.RequestCost = decimalPtr(money(sub(dayBill, quo(baseBill, ratInt(BaselineDays)))))
	}
	return c
}
