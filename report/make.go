package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/estimator"
)

// MakeStore is what making a report reads and writes.
type MakeStore interface {
	Store
	SaveReport(ctx context.Context, r Stored) (Stored, error)
	LatencyStats(ctx context.Context, month billing.Date, groupBy string) (map[string]LatencyStats, error)
	ClaimRun(ctx context.Context, schedule string, period billing.Date, instance string, stale time.Duration) (bool, error)
	FinishRun(ctx context.Context, schedule string, period billing.Date, reportID int64, runErr error) error
}

// BudgetSource gives the budget status of each workload for the month
// starting on month, as of now (the budget package, adapted by the caller).
type BudgetSource func(ctx context.Context, month billing.Date, now time.Time) (map[string]BudgetStatus, error)

// Maker makes, stores and schedules reports.
type Maker struct {
	store     MakeStore
	budgets   BudgetSource
	groupTags []string
	reqPlan   string
	flopsPlan string
	linkBase  string
}

// MakerOptions configure a Maker.
type MakerOptions struct {
	Budgets                BudgetSource
	GroupTags              []string
	RequestPlan, FLOPsPlan string // defaults when a request names none
	LinkBase               string // the dashboard's absolute URL, for links in reports
}

// NewMaker returns a Maker.
func NewMaker(s MakeStore, o MakerOptions) *Maker {
	return &Maker{store: s, budgets: o.Budgets, groupTags: o.GroupTags, reqPlan: o.RequestPlan, flopsPlan: o.FLOPsPlan, linkBase: o.LinkBase}
}

// MakeRequest is the body of POST /v1/reports.
type MakeRequest struct {
	Month       string `json:"month"` // "YYYY-MM"
	RequestPlan string `json:"request_plan,omitempty"`
	FLOPsPlan   string `json:"flops_plan,omitempty"`
	GroupBy     string `json:"group_by,omitempty"` // "workload" (default) or "tag:NAME"
}

// Make builds the report of a month and stores it (a remade month is a new
// report; the old one stays as it was sent). kind names what made it.
func (m *Maker) Make(ctx context.Context, req MakeRequest, kind string, now time.Time) (Stored, Monthly, error) {
	month, err := m.validate(&req)
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	rp, err := m.plan(ctx, "request_plan", req.RequestPlan, billing.KindRequest)
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	fp, err := m.plan(ctx, "flops_plan", req.FLOPsPlan, billing.KindFLOPs)
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	start, end := month, billing.DateOf(month.Time().AddDate(0, 1, 0))
	prev := billing.DateOf(month.Time().AddDate(0, -1, 0))
	rows, err := m.store.RollupSums(ctx, start, end, Boundaries(rp, fp))
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	prevRows, err := m.store.RollupSums(ctx, prev, start, Boundaries(rp, fp))
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	unknown, err := m.store.UnknownModels(ctx, start, end)
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	lat, err := m.store.LatencyStats(ctx, start, req.GroupBy)
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	var budgets map[string]BudgetStatus
	if req.GroupBy == "workload" && m.budgets != nil {
		if budgets, err = m.budgets(ctx, start, now); err != nil {
			return Stored{}, Monthly{}, err
		}
	}
	rep, err := BuildMonthly(MonthInput{Month: start, GroupBy: req.GroupBy, RequestPlan: rp, FLOPsPlan: fp, Rollups: rows,
		PrevRollups: prevRows, Budgets: budgets, Latency: lat, Unpriced: unknown, GeneratedAt: now, LinkBase: m.linkBase})
	if err != nil {
		return Stored{}, Monthly{}, err
	}
	body, err := json.Marshal(rep)
	if err != nil {
		return Stored{}, Monthly{}, fmt.Errorf("report: %w", err)
	}
	csv, err := rep.CSV()
	if err != nil {
		return Stored{}, Monthly{}, fmt.Errorf("report: csv: %w", err)
	}
	html, err := rep.HTML()
	if err != nil {
		return Stored{}, Monthly{}, fmt.Errorf("report: html: %w", err)
	}
	st, err := m.store.SaveReport(ctx, Stored{Kind: kind, PeriodStart: start, PeriodEnd: end, GroupBy: req.GroupBy,
		RequestPlan: rp.Name, FLOPsPlan: fp.Name, Body: body, CSV: string(csv), HTML: string(html), Summary: rep.Summary()})
	return st, rep, err
}

func (m *Maker) validate(req *MakeRequest) (billing.Date, error) {
	var ps []estimator.Problem
	add := func(f, msg string) { ps = append(ps, estimator.Problem{Field: f, Message: msg}) }
	var month billing.Date
	if d, err := billing.ParseDate(req.Month + "-01"); err != nil || len(req.Month) != 7 {
		add("month", fmt.Sprintf("%q is not a month YYYY-MM", req.Month))
	} else {
		month = d
	}
	if req.RequestPlan == "" {
		req.RequestPlan = m.reqPlan
	}
	if req.FLOPsPlan == "" {
		req.FLOPsPlan = m.flopsPlan
	}
	if req.GroupBy == "" {
		req.GroupBy = "workload"
	}
	if g := req.GroupBy; g != "workload" {
		name, ok := strings.CutPrefix(g, "tag:")
		known := false
		for _, t := range m.groupTags {
			known = known || t == name
		}
		if !ok || !known {
			add("group_by", fmt.Sprintf("must be workload or tag:NAME with NAME one of the rollup tags (%s)", strings.Join(m.groupTags, ", ")))
		}
	}
	if len(ps) > 0 {
		return billing.Date{}, estimator.ValidationError{Problems: ps}
	}
	return month, nil
}

func (m *Maker) plan(ctx context.Context, field, name string, kind billing.Kind) (billing.Plan, error) {
	p, err := m.store.Plan(ctx, name)
	if errors.Is(err, billing.ErrPlanNotFound) {
		return billing.Plan{}, estimator.ValidationError{Problems: []estimator.Problem{{Field: field, Message: fmt.Sprintf("no plan is called %q", name)}}}
	}
	if err != nil {
		return billing.Plan{}, err
	}
	if p.Kind != kind {
		return billing.Plan{}, estimator.ValidationError{Problems: []estimator.Problem{{Field: field, Message: fmt.Sprintf("plan %q is a %s plan", name, p.Kind)}}}
	}
	return p, nil
}

// Schedule is a report made on a cron schedule and sent to channels.
type Schedule struct {
	Name     string   `json:"name"`     // unique; names the runs and the reports' kind
	Spec     string   `json:"spec"`     // cron spec, in Location
	GroupBy  string   `json:"group_by"` // "workload" or "tag:NAME"
	Channels []string `json:"channels"` // channel names; empty means all
	// Kind is "monthly" (the previous month's report; the default) or
	// "weekly" (a summary of the previous Monday-to-Sunday week).
	Kind string `json:"kind,omitempty"`
	// Location is the time zone of Spec and of "the previous month".
	Location *time.Location `json:"-"`
}

// PreviousMonth is the month before the one that now falls in, in loc.
func PreviousMonth(now time.Time, loc *time.Location) billing.Date {
	t := now.In(loc)
	first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return billing.DateOf(first.AddDate(0, -1, 0))
}

// staleClaim is how long a claimed run may stay unfinished before another
// instance takes it over (its instance died mid-run).
const staleClaim = 15 * time.Minute

// RunScheduled makes the previous month's report for s, exactly once across
// instances: the instance that claims the run makes it; the others return
// ran=false. It is called by cron and, at start, to catch up a run missed
// while the service was down (the claim makes a finished run a no-op).
func (m *Maker) RunScheduled(ctx context.Context, s Schedule, now time.Time, instance string) (Stored, Monthly, bool, error) {
	period := PreviousMonth(now, s.Location)
	if s.Kind == "weekly" {
		period = PreviousWeek(now, s.Location)
	}
	ok, err := m.store.ClaimRun(ctx, s.Name, period, instance, staleClaim)
	if err != nil || !ok {
		return Stored{}, Monthly{}, false, err
	}
	var st Stored
	var rep Monthly
	if s.Kind == "weekly" {
		st, err = m.MakeWeekly(ctx, period, s.GroupBy, s.Name, now)
	} else {
		st, rep, err = m.Make(ctx, MakeRequest{Month: period.Time().Format("2006-01"), GroupBy: s.GroupBy}, s.Name, now)
	}
	ferr := m.store.FinishRun(context.WithoutCancel(ctx), s.Name, period, st.ID, err)
	if err != nil {
		return Stored{}, Monthly{}, true, err
	}
	return st, rep, true, ferr
}
