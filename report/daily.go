package report

import (
	"context"
	"errors"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
)

// PromptBucket counts the records of a workload's month whose mean prompt
// per request is in [2^Bucket, 2^(Bucket+1)) tokens.
type PromptBucket struct {
	Bucket   int   `json:"bucket"`
	Records  int64 `json:"records"`
	Requests int64 `json:"requests"`
}

// DayPoint is one UTC day of usage and its two bills, for charts.
type DayPoint struct {
	Day              billing.Date    `json:"day"`
	Records          int64           `json:"records"`
	Requests         int64           `json:"requests"`
	InputTokens      int64           `json:"input_tokens"`
	OutputTokens     int64           `json:"output_tokens"`
	PrefillFLOPs     decimal.Decimal `json:"prefill_flops"`
	DecodeFLOPs      decimal.Decimal `json:"decode_flops"`
	RequestCost      decimal.Decimal `json:"request_cost"`
	FLOPsCost        decimal.Decimal `json:"flops_cost"`
	BloatTokens      int64           `json:"bloat_tokens"`
	BloatInputTokens int64           `json:"bloat_input_tokens"`
	// Unpriced counts the records of the day one of the plans could not
	// price; their FLOPs are in the totals, their cost in neither bill.
	Unpriced int64 `json:"unpriced"`
}

// DailyQuery asks for the days [From, To) of one workload ("" for all),
// priced under two plans (either may be "" to leave its bill at zero).
type DailyQuery struct {
	From, To    billing.Date
	Workload    string
	RequestPlan string
	FLOPsPlan   string
}

// Daily returns one point per day of the range, days without usage
// included (as zeros), so that a chart's x axis is the calendar.
func (s *Service) Daily(ctx context.Context, q DailyQuery) ([]DayPoint, error) {
	var rp, fp *billing.Plan
	for _, p := range []struct {
		name string
		dst  **billing.Plan
	}{{q.RequestPlan, &rp}, {q.FLOPsPlan, &fp}} {
		if p.name == "" {
			continue
		}
		plan, err := s.store.Plan(ctx, p.name)
		if errors.Is(err, billing.ErrPlanNotFound) {
			continue // a dashboard without plans still shows FLOPs
		}
		if err != nil {
			return nil, err
		}
		*p.dst = &plan
	}
	rows, err := s.store.Rollups(ctx, q.From, q.To)
	if err != nil {
		return nil, err
	}
	byDay := map[billing.Date]*DayPoint{}
	for d := q.From; d.Before(q.To); d = billing.DateOf(d.Time().AddDate(0, 0, 1)) {
		byDay[d] = &DayPoint{Day: d}
	}
	for _, r := range rows {
		if q.Workload != "" && r.Workload != q.Workload {
			continue
		}
		p := byDay[r.Day]
		if p == nil {
			continue
		}
		p.Records += r.Records
		p.Requests += r.Requests
		p.InputTokens += r.InputTokens
		p.OutputTokens += r.OutputTokens
		p.PrefillFLOPs = p.PrefillFLOPs.Add(r.PrefillFLOPs)
		p.DecodeFLOPs = p.DecodeFLOPs.Add(r.DecodeFLOPs)
		p.BloatTokens += r.BloatTokens
		p.BloatInputTokens += r.BloatInputTokens
		u := r.Usage()
		priced := true
		if rp != nil {
			if c, err := rp.Price(u, r.Day.Time()); err == nil {
				p.RequestCost = p.RequestCost.Add(c)
			} else {
				priced = false
			}
		}
		if fp != nil {
			if c, err := fp.Price(u, r.Day.Time()); err == nil {
				p.FLOPsCost = p.FLOPsCost.Add(c)
			} else {
				priced = false
			}
		}
		if !priced {
			p.Unpriced += r.Records
		}
	}
	out := make([]DayPoint, 0, len(byDay))
	for _, p := range byDay {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day.Before(out[j].Day) })
	return out, nil
}

// Workloads lists the workloads with usage in [from, to), by name.
func (s *Service) Workloads(ctx context.Context, from, to billing.Date) ([]string, error) {
	rows, err := s.store.Rollups(ctx, from, to)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if !seen[r.Workload] {
			seen[r.Workload] = true
			out = append(out, r.Workload)
		}
	}
	sort.Strings(out)
	return out, nil
}
