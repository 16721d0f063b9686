package demo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/flopledger/flopledger/usage"
)

// The generator's fixed seed: the same Now gives the same data set.
const seed1, seed2 = 0xf10b1ed9e2, 0x90d4a75

// generator walks the period hour by hour and emits records in time order
// (within an hour, in a fixed order), so that ingestion can stop at any
// hour boundary to evaluate alerts as they would have been then.
type generator struct {
	p    period
	rng  *rand.Rand
	seq  map[string]int // the last id number per workload
	emit func(usage.Record) error
}

// generate emits the whole data set; it stops at the first error of emit.
// Every call with the same period emits the same records.
func generate(p period, emit func(usage.Record) error) error {
	g := &generator{p: p, rng: rand.New(rand.NewPCG(seed1, seed2)), seq: map[string]int{}, emit: emit}
	for d := range Days {
		daily := make([]int64, len(workloads))
		for i, w := range workloads {
			daily[i] = g.daily(w, d)
		}
		for h := range 24 {
			for i, w := range workloads {
				if err := g.hour(w, d, h, daily[i]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// daily is the requests of w on day d: the end volume scaled by growth,
// the weekday and ±8% of day-to-day noise.
func (g *generator) daily(w workload, d int) int64 {
	growth := w.growth + (1000-w.growth)*int64(d)/(Days-1)
	week := w.weekly[g.p.day(d).Weekday()]
	return w.daily * growth / 1000 * week / 1000 * g.between(920, 1080) / 1000
}

// hour emits w's records of hour h of day d: one bucket per slot, customer
// and model, the runaway loop on its day, and a few single staging requests.
func (g *generator) hour(w workload, d, h int, daily int64) error {
	var sumHours int64
	for _, v := range w.hourly {
		sumHours += v
	}
	slots := 60 / w.minutes
	start := g.p.day(d).Add(time.Duration(h) * time.Hour)
	shares, sumShares := g.shares(w, d)
	var sumCustomers int64
	for _, c := range w.customers {
		sumCustomers += c.weight
	}
	for s := range slots {
		at := start.Add(time.Duration(s*w.minutes) * time.Minute)
		// Milli-requests of the slot, with ±15% of noise: rounding each
		// cell at random keeps the small night-time counts unbiased.
		slot := daily * 1000 * w.hourly[h] / (sumHours * int64(slots)) * g.between(850, 1150) / 1000
		for _, c := range w.customers {
			for i, m := range w.models {
				n := g.round(slot * c.weight / sumCustomers * shares[i] / sumShares)
				if n == 0 {
					continue
				}
				if err := g.bucket(w, d, at, m.model, c.name, n); err != nil {
					return err
				}
			}
		}
		if w.name == surgeWorkload && d == surgeDay && h >= 2 && h < 14 {
			// The loop sends six days' worth of requests in twelve hours.
			if err := g.loop(w, at, g.round(6*daily*1000/(12*int64(slots)))); err != nil {
				return err
			}
		}
	}
	return g.singles(w, d, h, start)
}

// shares returns the models' shares of w on day d, and their sum.
func (g *generator) shares(w workload, d int) ([]int64, int64) {
	out := make([]int64, len(w.models))
	var sum int64
	for i, m := range w.models {
		out[i] = m.first + (m.last-m.first)*int64(d)/(Days-1)
		sum += out[i]
	}
	return out, sum
}

// bucket emits n requests of w on model for customer, in production.
func (g *generator) bucket(w workload, d int, at time.Time, model, customer string, n int64) error {
	in := n * w.in * g.between(850, 1150) / 1000
	out := max(n, n*w.out*g.between(700, 1300)/1000)
	cached := min(in, in*w.cached*g.between(850, 1150)/1_000_000)
	r := g.record(w, at, model, customer, "prod", n, in, cached, out)
	if w.bloat >= 0 {
		pm, lo, hi := w.bloat, int64(600), int64(1400)
		if w.name == bloatWorkload && d >= bloatFirst && d <= bloatLast {
			// 8.3% to 10.7% of every prompt: the alert's threshold is 5%.
			pm, lo, hi = 95, 870, 1130
		}
		b := in * pm * g.between(lo, hi) / 1_000_000
		r.BloatTokens = &b
	}
	g.latency(&r, 850, 1150)
	return g.emit(r)
}

// loop emits a runaway agent loop's bucket of n requests: each step resends
// the whole, growing conversation (mostly from the prefix cache) and asks
// for another step.
func (g *generator) loop(w workload, at time.Time, n int64) error {
	if n == 0 {
		return nil
	}
	in := n * 90_000 * g.between(900, 1100) / 1000
	cached := in * 920 / 1000
	out := n * 700 * g.between(800, 1200) / 1000
	r := g.record(w, at, w.models[0].model, "initech", "prod", n, in, cached, out)
	g.latency(&r, 900, 1100)
	return g.emit(r)
}

// singles emits single staging requests during office hours on weekdays,
// and, in support chat's last week, a few of the unregistered model that a
// developer is trying out.
func (g *generator) singles(w workload, d, h int, start time.Time) error {
	wd := g.p.day(d).Weekday()
	if wd == time.Saturday || wd == time.Sunday || h < 8 || h >= 18 {
		return nil
	}
	shares, _ := g.shares(w, d)
	model := w.models[0].model // staging tries the model that takes most traffic
	if len(shares) > 1 && shares[1] > shares[0] {
		model = w.models[1].model
	}
	for range g.rng.IntN(3) {
		if err := g.single(w, start, model); err != nil {
			return err
		}
	}
	if w.name == "support-chat" && d >= unpricedFirst && g.rng.IntN(2) == 0 {
		return g.single(w, start, Unpriced)
	}
	return nil
}

// single emits one staging request of w on model within the hour at start.
func (g *generator) single(w workload, start time.Time, model string) error {
	at := start.Add(time.Duration(g.rng.Int64N(3600)) * time.Second)
	in := max(1, w.in*g.between(400, 1600)/1000)
	out := max(1, w.out*g.between(300, 1700)/1000)
	cached := min(in, in*w.cached*g.between(0, 1200)/1_000_000)
	r := g.record(w, at, model, "qa", "staging", 1, in, cached, out)
	if w.bloat >= 0 {
		b := in * w.bloat * g.between(0, 2000) / 1_000_000
		r.BloatTokens = &b
	}
	g.latency(&r, 600, 1600)
	return g.emit(r)
}

// record builds a record with the next id of w.
func (g *generator) record(w workload, at time.Time, model, customer, env string, n, in, cached, out int64) usage.Record {
	g.seq[w.name]++
	return usage.Record{
		ID: fmt.Sprintf("demo-%s-%d", w.name, g.seq[w.name]), OccurredAt: at, Workload: w.name, Model: model,
		InputTokens: in, CachedInputTokens: cached, OutputTokens: out, Requests: n,
		Tags: map[string]string{"team": w.team, "customer": customer, "env": env},
	}
}

// latency sets the mean time to first token and latency of r's requests:
// the model's overhead, the prefill of the uncached prompt, then one step
// per generated token, scaled by a random lo‰ to hi‰.
func (g *generator) latency(r *usage.Record, lo, hi int64) {
	s := speeds[r.Model]
	n := r.Requests
	ttft := (s.overheadMS + (r.InputTokens-r.CachedInputTokens)/n/s.prefillTokPerMS) * g.between(lo, hi) / 1000
	total := ttft + (r.OutputTokens/n)*s.msPerToken*g.between(lo, hi)/1000
	r.TTFTMS, r.LatencyMS = &ttft, &total
}

// between returns a uniform integer in [lo, hi].
func (g *generator) between(lo, hi int64) int64 { return lo + g.rng.Int64N(hi-lo+1) }

// round turns milli-units into units, rounding up with the probability of
// the remainder, so that many small expectations add up to the right total.
func (g *generator) round(milli int64) int64 {
	n := milli / 1000
	if g.rng.Int64N(1000) < milli%1000 {
		n++
	}
	return n
}
