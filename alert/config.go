package alert

import (
	"fmt"
	"maps"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/estimator"
)

// Config is the alerting configuration that cmd builds at start: the
// thresholds and floors for every workload, overrides for some, and the
// two plans that alert costs are priced under. It lives in Go rather than
// in a table because it changes with a deploy, like the rest of the
// configuration.
type Config struct {
	// Defaults apply to every workload without an entry in PerWorkload;
	// nil means DefaultThresholds().
	Defaults *Thresholds
	// PerWorkload replaces Defaults for a workload, whole: start from
	// DefaultThresholds() and change what differs, so that no field is
	// silently zero.
	PerWorkload map[string]Thresholds
	// RequestPlan and FLOPsPlan name the plans alert costs are priced
	// under. Empty, or a plan that does not exist, leaves that cost out.
	RequestPlan string
	FLOPsPlan   string
}

// Thresholds are one workload's thresholds and minimum-volume floors.
type Thresholds struct {
	Bloat  BloatRule
	Prompt PromptRule
	FLOPs  FLOPsRule
	Budget BudgetRule
}

// BloatRule: whitespace_bloat fires when bloat tokens ≥ Share × the input
// tokens whose bloat is known, on a day with at least MinInputTokens such
// input tokens and MinRecords records.
type BloatRule struct {
	Share          decimal.Decimal // default 0.05
	MinInputTokens int64           // default 1,000
	MinRecords     int64           // default 20
}

// PromptRule: prompt_inflation fires when the day's mean input tokens per
// request ≥ Factor × the baseline's, with at least MinRequests requests on
// the day and MinBaselineRequests in the baseline week.
type PromptRule struct {
	Factor              decimal.Decimal // default 2
	MinRequests         int64           // default 50
	MinBaselineRequests int64           // default 100
}

// FLOPsRule: flops_surge fires when the day's FLOPs ≥ Factor × the
// baseline's daily mean, with at least MinRequests requests on the day and
// a baseline daily mean of at least MinBaselineDailyFLOPs.
type FLOPsRule struct {
	Factor                decimal.Decimal // default 10
	MinRequests           int64           // default 50
	MinBaselineDailyFLOPs decimal.Decimal // default 10^12 (one TFLOP)
}

// BudgetRule: budget_at_risk fires when forecast ≥ AtRisk × amount,
// budget_exceeded when spent ≥ Exceeded × amount; a budget needs a positive
// amount and nothing else.
type BudgetRule struct {
	AtRisk   decimal.Decimal // default 1 (100%)
	Exceeded decimal.Decimal // default 1 (100%)
}

// DefaultThresholds returns the thresholds and floors of the issue.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Bloat:  BloatRule{Share: decimal.New(5, -2), MinInputTokens: 1000, MinRecords: 20},
		Prompt: PromptRule{Factor: decimal.NewFromInt(2), MinRequests: 50, MinBaselineRequests: 100},
		FLOPs:  FLOPsRule{Factor: decimal.NewFromInt(10), MinRequests: 50, MinBaselineDailyFLOPs: decimal.New(1, 12)},
		Budget: BudgetRule{AtRisk: decimal.NewFromInt(1), Exceeded: decimal.NewFromInt(1)},
	}
}

// For returns the thresholds of workload.
func (c Config) For(workload string) Thresholds {
	if t, ok := c.PerWorkload[workload]; ok {
		return t
	}
	if c.Defaults != nil {
		return *c.Defaults
	}
	return DefaultThresholds()
}

// Validate reports every problem at once. Thresholds must be positive (a
// zero threshold would page for every workload on every run) and floors
// must not be negative.
func (c Config) Validate() error {
	var ps []estimator.Problem
	if c.Defaults != nil {
		ps = c.Defaults.problems("defaults", ps)
	}
	for _, w := range slices.Sorted(maps.Keys(c.PerWorkload)) {
		ps = c.PerWorkload[w].problems(fmt.Sprintf("per_workload[%s]", w), ps)
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

func (t Thresholds) problems(prefix string, ps []estimator.Problem) []estimator.Problem {
	positive := func(field string, d decimal.Decimal) {
		if !d.IsPositive() {
			ps = append(ps, estimator.Problem{Field: prefix + "." + field, Message: "must be positive"})
		}
	}
	floor := func(field string, n int64) {
		if n < 0 {
			ps = append(ps, estimator.Problem{Field: prefix + "." + field, Message: "must not be negative"})
		}
	}
	positive("bloat.share", t.Bloat.Share)
	floor("bloat.min_input_tokens", t.Bloat.MinInputTokens)
	floor("bloat.min_records", t.Bloat.MinRecords)
	positive("prompt.factor", t.Prompt.Factor)
	floor("prompt.min_requests", t.Prompt.MinRequests)
	floor("prompt.min_baseline_requests", t.Prompt.MinBaselineRequests)
	positive("flops.factor", t.FLOPs.Factor)
	floor("flops.min_requests", t.FLOPs.MinRequests)
	if t.FLOPs.MinBaselineDailyFLOPs.IsNegative() {
		ps = append(ps, estimator.Problem{Field: prefix + ".flops.min_baseline_daily_flops", Message: "must not be negative"})
	}
	positive("budget.at_risk", t.Budget.AtRisk)
	positive("budget.exceeded", t.Budget.Exceeded)
	return ps
}
