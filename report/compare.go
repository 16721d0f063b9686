// Package report builds what people read: the comparison of request-based
// and FLOPs-based billing per workload (or model, or tag), priced from the
// daily rollups, never from the raw records. It takes the period as an
// argument and holds no clock of its own.
package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
)

// Rollup is one row of the daily rollups: a day, a workload, a model and a
// set of grouping tags, with the sums of their priced records.
type Rollup struct {
	Day              billing.Date
	Workload         string
	Model            string
	Tags             map[string]string
	Records          int64
	Requests         int64
	InputTokens      int64
	CachedTokens     int64
	OutputTokens     int64
	PrefillFLOPs     decimal.Decimal
	DecodeFLOPs      decimal.Decimal
	BloatTokens      int64
	BloatInputTokens int64
	LatencyRecords   int64
	LatencyMSSum     decimal.Decimal
}

// Usage is the rollup row as billing prices it.
func (r Rollup) Usage() billing.Usage {
	return billing.Usage{Model: r.Model, Requests: r.Requests, InputTokens: r.InputTokens, CachedInputTokens: r.CachedTokens,
		OutputTokens: r.OutputTokens, PrefillFLOPs: r.PrefillFLOPs, DecodeFLOPs: r.DecodeFLOPs}
}

// Store reads rollups and plans; the store package implements it.
type Store interface {
	// Rollups returns the rollup rows of the days in [from, to).
	Rollups(ctx context.Context, from, to billing.Date) ([]Rollup, error)
	// RollupSums returns the rollups of [from, to) summed per workload,
	// model and tags within each period between boundaries, each row dated
	// on its period's first day: what pricing needs, in far fewer rows.
	RollupSums(ctx context.Context, from, to billing.Date, boundaries []billing.Date) ([]Rollup, error)
	Plan(ctx context.Context, name string) (billing.Plan, error)
	// UnknownModels counts, per model, the records of [from, to) whose
	// model is not known yet (so they have no FLOPs and no rollup).
	UnknownModels(ctx context.Context, from, to billing.Date) ([]Unpriced, error)
}

// Unpriced is usage the comparison could not price, and why.
type Unpriced struct {
	Model   string `json:"model"`
	Records int64  `json:"records"`
	Reason  string `json:"reason"`
}

// Service builds comparisons.
type Service struct {
	store     Store
	groupTags []string
}

// New returns a Service; groupTags are the tag keys the rollups keep.
func New(s Store, groupTags []string) *Service {
	return &Service{store: s, groupTags: groupTags}
}

// Query asks for a comparison over the days [From, To).
type Query struct {
	From, To    billing.Date
	RequestPlan string
	FLOPsPlan   string
	GroupBy     string // "workload" (default), "model" or "tag:NAME"
}

// Validate reports every problem with the query.
func (q Query) Validate(groupTags []string) error {
	var ps []estimator.Problem
	add := func(f, m string) { ps = append(ps, estimator.Problem{Field: f, Message: m}) }
	if q.From.IsZero() {
		add("from", "is required (YYYY-MM-DD)")
	}
	if q.To.IsZero() {
		add("to", "is required (YYYY-MM-DD, exclusive)")
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		add("to", "must be after from (the range is [from, to))")
	}
	if q.RequestPlan == "" {
		add("request_plan", "is required")
	}
	if q.FLOPsPlan == "" {
		add("flops_plan", "is required")
	}
	switch g := q.GroupBy; {
	case g == "" || g == "workload" || g == "model":
	case strings.HasPrefix(g, "tag:"):
		name := strings.TrimPrefix(g, "tag:")
		found := false
		for _, t := range groupTags {
			found = found || t == name
		}
		if !found {
			add("group_by", fmt.Sprintf("tag %q is not kept in the rollups; configured: %s (FLOPLEDGER_GROUP_TAGS)", name, strings.Join(groupTags, ", ")))
		}
	default:
		add("group_by", "must be workload, model or tag:NAME")
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

// Figures are one group's usage and its two bills. FLOPs are exact
// integers (JSON numbers); money and prices are exact decimals (JSON
// strings); percentages and prices per TFLOP are rounded as billing says.
type Figures struct {
	Key               string           `json:"key"`
	Records           int64            `json:"records"`
	Requests          int64            `json:"requests"`
	InputTokens       int64            `json:"input_tokens"`
	CachedInputTokens int64            `json:"cached_input_tokens"`
	OutputTokens      int64            `json:"output_tokens"`
	PrefillFLOPs      json.Number      `json:"prefill_flops"`
	DecodeFLOPs       json.Number      `json:"decode_flops"`
	PrefillShare      *decimal.Decimal `json:"prefill_share"`
	RequestCost       decimal.Decimal  `json:"request_cost"`
	FLOPsCost         decimal.Decimal  `json:"flops_cost"`
	Delta             decimal.Decimal  `json:"delta"`
	DeltaPct          *decimal.Decimal `json:"delta_pct"`
	BreakEven         *decimal.Decimal `json:"break_even_price_per_tflop"`
	BloatTokens       int64            `json:"bloat_tokens"`
	BloatInputTokens  int64            `json:"bloat_input_tokens"`
}

// Total adds the revenue-neutral price to the figures of everything.
type Total struct {
	Figures
	RevenueNeutral *decimal.Decimal `json:"revenue_neutral_price_per_tflop"`
}

// Comparison is the answer of GET /v1/comparison.
type Comparison struct {
	From        billing.Date `json:"from"`
	To          billing.Date `json:"to"`
	RequestPlan string       `json:"request_plan"`
	FLOPsPlan   string       `json:"flops_plan"`
	GroupBy     string       `json:"group_by"`
	Groups      []Figures    `json:"groups"`
	Total       Total        `json:"total"`
	Unpriced    []Unpriced   `json:"unpriced"`
}

// acc accumulates one group.
type acc struct {
	f                       Figures
	prefill, decode, rc, fc decimal.Decimal
}

// Compare prices every rollup row of the range under the version of each
// plan in force on its day, groups them, and compares the two bills. Rows
// the request plan cannot price (no price for their model, or a day before
// the plan's first version) are left out of both bills and listed as
// unpriced, so that the two sides always cover the same usage.
func (s *Service) Compare(ctx context.Context, q Query) (Comparison, error) {
	if err := q.Validate(s.groupTags); err != nil {
		return Comparison{}, err
	}
	if q.GroupBy == "" {
		q.GroupBy = "workload"
	}
	rp, err := s.plan(ctx, "request_plan", q.RequestPlan, billing.KindRequest)
	if err != nil {
		return Comparison{}, err
	}
	fp, err := s.plan(ctx, "flops_plan", q.FLOPsPlan, billing.KindFLOPs)
	if err != nil {
		return Comparison{}, err
	}
	rows, err := s.store.RollupSums(ctx, q.From, q.To, Boundaries(rp, fp))
	if err != nil {
		return Comparison{}, err
	}
	groups := map[string]*acc{}
	unpriced := map[string]*Unpriced{}
	for _, r := range rows {
		u := r.Usage()
		rc, err1 := rp.Price(u, r.Day.Time())
		fc, err2 := fp.Price(u, r.Day.Time())
		if err := errors.Join(err1, err2); err != nil {
			if !errors.Is(err, billing.ErrUnpriced) && !errors.Is(err, billing.ErrNoVersion) {
				return Comparison{}, fmt.Errorf("report: price %s %s %s: %w", r.Day, r.Workload, r.Model, err)
			}
			// One entry per model and reason: the errors name the day or
			// version, which would split one model over many entries.
			why := reason(err1, err2, q)
			key := r.Model + "\x00" + why
			if unpriced[key] == nil {
				unpriced[key] = &Unpriced{Model: r.Model, Reason: why}
			}
			unpriced[key].Records += r.Records
			continue
		}
		k := groupKey(q.GroupBy, r)
		a := groups[k]
		if a == nil {
			a = &acc{f: Figures{Key: k}}
			groups[k] = a
		}
		a.add(r, rc, fc)
	}
	out := Comparison{From: q.From, To: q.To, RequestPlan: q.RequestPlan, FLOPsPlan: q.FLOPsPlan, GroupBy: q.GroupBy,
		Groups: []Figures{}, Unpriced: []Unpriced{}}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var all acc
	for _, k := range keys {
		a := groups[k]
		out.Groups = append(out.Groups, a.figures())
		all.merge(a)
	}
	all.f.Key = "TOTAL"
	out.Total = Total{Figures: all.figures()}
	out.Total.RevenueNeutral = out.Total.BreakEven
	for _, u := range unpriced {
		out.Unpriced = append(out.Unpriced, *u)
	}
	unknown, err := s.store.UnknownModels(ctx, q.From, q.To)
	if err != nil {
		return Comparison{}, err
	}
	out.Unpriced = append(out.Unpriced, unknown...)
	sort.Slice(out.Unpriced, func(i, j int) bool { return out.Unpriced[i].Model < out.Unpriced[j].Model })
	return out, nil
}

func (s *Service) plan(ctx context.Context, field, name string, kind billing.Kind) (billing.Plan, error) {
	p, err := s.store.Plan(ctx, name)
	if errors.Is(err, billing.ErrPlanNotFound) {
		return billing.Plan{}, estimator.ValidationError{Problems: []estimator.Problem{{Field: field, Message: fmt.Sprintf("no plan is called %q", name)}}}
	}
	if err != nil {
		return billing.Plan{}, err
	}
	if p.Kind != kind {
		return billing.Plan{}, estimator.ValidationError{Problems: []estimator.Problem{{Field: field, Message: fmt.Sprintf("plan %q is a %s plan, not a %s plan", name, p.Kind, kind)}}}
	}
	return p, nil
}

func reason(errRequest, errFLOPs error, q Query) string {
	switch {
	case errors.Is(errRequest, billing.ErrUnpriced):
		return fmt.Sprintf("no price for this model (and no default) in request plan %q", q.RequestPlan)
	case errors.Is(errRequest, billing.ErrNoVersion):
		return fmt.Sprintf("request plan %q has no version in force on some of these days", q.RequestPlan)
	default:
		return fmt.Sprintf("FLOPs plan %q has no version in force on some of these days", q.FLOPsPlan)
	}
}

func groupKey(by string, r Rollup) string {
	switch {
	case by == "model":
		return r.Model
	case strings.HasPrefix(by, "tag:"):
		if v, ok := r.Tags[strings.TrimPrefix(by, "tag:")]; ok {
			return v
		}
		return "(untagged)"
	}
	return r.Workload
}

func (a *acc) add(r Rollup, rc, fc decimal.Decimal) {
	a.f.Records += r.Records
	a.f.Requests += r.Requests
	a.f.InputTokens += r.InputTokens
	a.f.CachedInputTokens += r.CachedTokens
	a.f.OutputTokens += r.OutputTokens
	a.f.BloatTokens += r.BloatTokens
	a.f.BloatInputTokens += r.BloatInputTokens
	a.prefill = a.prefill.Add(r.PrefillFLOPs)
	a.decode = a.decode.Add(r.DecodeFLOPs)
	a.rc = a.rc.Add(rc)
	a.fc = a.fc.Add(fc)
}

func (a *acc) merge(b *acc) {
	a.f.Records += b.f.Records
	a.f.Requests += b.f.Requests
	a.f.InputTokens += b.f.InputTokens
	a.f.CachedInputTokens += b.f.CachedInputTokens
	a.f.OutputTokens += b.f.OutputTokens
	a.f.BloatTokens += b.f.BloatTokens
	a.f.BloatInputTokens += b.f.BloatInputTokens
	a.prefill = a.prefill.Add(b.prefill)
	a.decode = a.decode.Add(b.decode)
	a.rc = a.rc.Add(b.rc)
	a.fc = a.fc.Add(b.fc)
}

// figures compares the accumulated bills with billing's rules.
func (a *acc) figures() Figures {
	c := billing.Compare(billing.Group{Key: a.f.Key, RequestCost: a.rc, FLOPsCost: a.fc, PrefillFLOPs: a.prefill, DecodeFLOPs: a.decode})
	f := a.f
	f.PrefillFLOPs = json.Number(a.prefill.String())
	f.DecodeFLOPs = json.Number(a.decode.String())
	f.RequestCost, f.FLOPsCost, f.Delta = c.RequestCost, c.FLOPsCost, c.Delta
	f.DeltaPct, f.BreakEven, f.PrefillShare = c.DeltaPct, c.BreakEvenPerTFLOP, c.PrefillShare
	return f
}

// Boundaries are the dates on which any of the plans changes price: within
// two consecutive boundaries every day is priced alike.
func Boundaries(plans ...billing.Plan) []billing.Date {
	var out []billing.Date
	for _, p := range plans {
		for _, v := range p.Versions {
			out = append(out, v.EffectiveFrom)
		}
	}
	return out
}
