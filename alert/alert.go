package alert

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/shopspring/decimal"
)

// Kind is what an alert is about.
type Kind string

// The kinds of alert.
const (
	WhitespaceBloat Kind = "whitespace_bloat"
	PromptInflation Kind = "prompt_inflation"
	FLOPsSurge      Kind = "flops_surge"
	BudgetAtRisk    Kind = "budget_at_risk"
	BudgetExceeded  Kind = "budget_exceeded"
)

// DataKinds are the kinds evaluated from the daily rollups, over one UTC
// day; the others come from budget statuses, over a month.
var DataKinds = []Kind{WhitespaceBloat, PromptInflation, FLOPsSurge}

// BudgetKinds are the kinds evaluated from budget statuses.
var BudgetKinds = []Kind{BudgetAtRisk, BudgetExceeded}

// State is where an alert is in its lifecycle.
type State string

// The states: open → acknowledged → resolved, or open → resolved.
const (
	Open         State = "open"
	Acknowledged State = "acknowledged"
	Resolved     State = "resolved"
)

// Valid reports whether s is a known state.
func (s State) Valid() bool { return s == Open || s == Acknowledged || s == Resolved }

// Who resolved an alert.
const (
	ByUser = "user"
	ByAuto = "auto"
)

// Errors of the lifecycle; match them with errors.Is.
var (
	// ErrNotFound: no alert has that id.
	ErrNotFound = errors.New("alert not found")
	// ErrState: the alert is not in a state the transition starts from
	// (acknowledging an acknowledged or resolved alert, resolving a
	// resolved one).
	ErrState = errors.New("alert is not in a state that allows this")
)

// Alert is one alert as it is stored, listed and delivered.
type Alert struct {
	ID       int64  `json:"id"`
	Workload string `json:"workload"`
	Kind     Kind   `json:"kind"`
	State    State  `json:"state"`
	// [WindowStart, WindowEnd): from the start of the window that opened
	// the alert to the end of the latest window that still crossed.
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	// Sentence, Evidence, Cost and Fix describe the latest window that
	// crossed the threshold.
	Sentence        string     `json:"sentence"`
	Evidence        Evidence   `json:"evidence"`
	Cost            Cost       `json:"cost"`
	Fix             string     `json:"fix"`
	OpenedAt        time.Time  `json:"opened_at"`
	AcknowledgedAt  *time.Time `json:"acknowledged_at"`
	ResolvedAt      *time.Time `json:"resolved_at"`
	ResolvedBy      string     `json:"resolved_by,omitempty"` // ByUser or ByAuto
	LastEvaluatedAt time.Time  `json:"last_evaluated_at"`
}

// Window is a half-open time range [Start, End), in UTC.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Evidence is what was measured. Threshold and Observed are the same
// measure: a share of tokens (whitespace_bloat), a multiple of the baseline
// (prompt_inflation, flops_surge) or a share of the budget (budget kinds).
// Observed is rounded half up to 4 places for reading; the decision to
// fire was taken on the exact figures below it.
type Evidence struct {
	Window    Window          `json:"window"`
	Baseline  *Window         `json:"baseline,omitempty"`
	Threshold decimal.Decimal `json:"threshold"`
	Observed  decimal.Decimal `json:"observed"`
	Bloat     *BloatEvidence  `json:"bloat,omitempty"`
	Prompt    *PromptEvidence `json:"prompt,omitempty"`
	FLOPs     *FLOPsEvidence  `json:"flops,omitempty"`
	Budget    *BudgetEvidence `json:"budget,omitempty"`
}

// BloatEvidence is the window's whitespace: BloatTokens of the
// BloatInputTokens input tokens whose bloat is known, over Records records.
type BloatEvidence struct {
	BloatTokens      int64 `json:"bloat_tokens"`
	BloatInputTokens int64 `json:"bloat_input_tokens"`
	Records          int64 `json:"records"`
	// Models lists the window's bloat by model, largest first.
	Models []ModelBloat `json:"models"`
}

// ModelBloat is one model's share of the window's bloat.
type ModelBloat struct {
	Model            string `json:"model"`
	BloatTokens      int64  `json:"bloat_tokens"`
	BloatInputTokens int64  `json:"bloat_input_tokens"`
}

// PromptEvidence compares the mean prompt of the window with the
// baseline's. Means are rounded half up to 2 places for reading.
type PromptEvidence struct {
	Requests            int64           `json:"requests"`
	InputTokens         int64           `json:"input_tokens"`
	MeanInputTokens     decimal.Decimal `json:"mean_input_tokens"`
	BaselineRequests    int64           `json:"baseline_requests"`
	BaselineInputTokens int64           `json:"baseline_input_tokens"`
	BaselineMean        decimal.Decimal `json:"baseline_mean_input_tokens"`
	// ExtraInputTokens = (mean − baseline mean) × requests, rounded half
	// up to a whole token: what the window sent beyond baseline-sized
	// prompts.
	ExtraInputTokens int64 `json:"extra_input_tokens"`
	// Growth names the models and tag values whose input tokens grew most
	// from the baseline daily mean to the window.
	Growth []Growth `json:"growth"`
}

// FLOPsEvidence compares the window's FLOPs with the baseline's daily
// mean (the baseline's total over 7 days, days without traffic counting as
// zero). FLOPs are exact integers; the mean and the extra are rounded half
// up to a whole FLOP.
type FLOPsEvidence struct {
	Requests          int64       `json:"requests"`
	FLOPs             json.Number `json:"flops"`
	PrefillFLOPs      json.Number `json:"prefill_flops"`
	DecodeFLOPs       json.Number `json:"decode_flops"`
	BaselineFLOPs     json.Number `json:"baseline_flops"`
	BaselineDailyMean json.Number `json:"baseline_daily_mean_flops"`
	ExtraFLOPs        json.Number `json:"extra_flops"`
	Growth            []Growth    `json:"growth"`
}

// Growth is how much one model or tag value grew from the baseline daily
// mean to the window, in input tokens (prompt_inflation) or FLOPs
// (flops_surge). The mean and the growth are rounded half up to a whole
// token or FLOP.
type Growth struct {
	By                string      `json:"by"` // "model" or "tag:NAME"
	Value             string      `json:"value"`
	Window            json.Number `json:"window"`
	BaselineDailyMean json.Number `json:"baseline_daily_mean"`
	Growth            json.Number `json:"growth"`
}

// BudgetEvidence is the budget status the alert was raised on, in the
// budget's unit. Overrun is Spent − Amount (budget_exceeded) or Forecast −
// Amount (budget_at_risk); it is negative when a threshold below 100% was
// crossed.
type BudgetEvidence struct {
	Kind     string          `json:"kind"` // "money" or "tflops"
	Unit     string          `json:"unit"`
	Amount   decimal.Decimal `json:"amount"`
	Spent    decimal.Decimal `json:"spent"`
	Forecast decimal.Decimal `json:"forecast"`
	Overrun  decimal.Decimal `json:"overrun"`
}

// Cost is what the alert's window cost, beyond what it should have: the
// bloat itself, the extra prompt tokens, or the FLOPs above the baseline.
// FLOPs is an exact integer. Money is a decimal string; an amount computed
// from an exact product is exact, one computed from a share or a mean is
// rounded half away from zero to MoneyPlaces places (Method says which).
// A cost under a plan that is not configured, missing, or has no version
// for the window is left out (nil), and Missing says why.
type Cost struct {
	FLOPs       json.Number      `json:"flops,omitempty"`
	RequestPlan string           `json:"request_plan,omitempty"`
	RequestCost *decimal.Decimal `json:"request_cost,omitempty"`
	FLOPsPlan   string           `json:"flops_plan,omitempty"`
	FLOPsCost   *decimal.Decimal `json:"flops_cost,omitempty"`
	Method      string           `json:"method"`
	Missing     []string         `json:"missing,omitempty"`
}

// MoneyPlaces is the precision of the money amounts that come from a share
// or a mean (which need not have a finite decimal expansion): 10^-12
// dollars, far below anything shown.
const MoneyPlaces = 12
