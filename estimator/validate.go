package estimator

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// MaxDimension caps every size of an Architecture (10^7: a hundred times
// the largest published width), so that a typo cannot ask for an absurd
// computation.
const MaxDimension int64 = 10_000_000

// MaxParams caps an architecture's total parameter count (10^15, more than
// a thousand times the largest published model), which keeps Params within
// int64.
const MaxParams int64 = 1_000_000_000_000_000

// Problem is one thing wrong with an input. Field is its JSON name, dotted
// for nested fields ("moe.top_k"); it is empty when the problem belongs to
// the input as a whole.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError lists every problem found in an input, in a stable order.
// Match it with errors.As(err, &estimator.ValidationError{}) or a variable
// of that type.
type ValidationError struct {
	Problems []Problem
}

func (e ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		if p.Field == "" {
			parts[i] = p.Message
			continue
		}
		parts[i] = p.Field + ": " + p.Message
	}
	return "invalid input: " + strings.Join(parts, "; ")
}

// problems collects Problems; err returns nil when there are none.
type problems []Problem

func (p *problems) add(field, message string) {
	*p = append(*p, Problem{Field: field, Message: message})
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return ValidationError{Problems: p}
}

// size checks a dimension: 1..MaxDimension, or 0..MaxDimension when zero
// is allowed. It says whether the value is valid.
func (p *problems) size(field string, v int64, zeroAllowed bool) bool {
	switch {
	case v < 0 && zeroAllowed:
		p.add(field, "must not be negative")
	case v <= 0 && !zeroAllowed:
		p.add(field, "must be positive")
	case v > MaxDimension:
		p.add(field, fmt.Sprintf("must be at most %d", MaxDimension))
	default:
		return true
	}
	return false
}

// Validate reports every problem at once as a ValidationError with the JSON
// field names: sizes that are missing, negative or above MaxDimension;
// n_heads not a multiple of n_kv_heads; a head_dim that cannot default
// because d_model is not a multiple of n_heads; an unknown mlp kind; d_ff
// missing for a dense model or set for a mixture of experts without dense
// layers; top_k above n_experts; shared-expert and dense-layer counts that
// do not fit; and a total parameter count above MaxParams.
func (a Architecture) Validate() error {
	var p problems
	d := p.size("d_model", a.DModel, false)
	p.size("n_layers", a.Layers, false)
	heads := p.size("n_heads", a.Heads, false)
	kv := p.size("n_kv_heads", a.KVHeads, true)
	p.size("head_dim", a.HeadDim, true)
	p.size("vocab", a.Vocab, false)
	if heads && kv && a.KVHeads > 0 && a.Heads%a.KVHeads != 0 {
		p.add("n_kv_heads", fmt.Sprintf("n_heads (%d) must be a multiple of n_kv_heads (%d)", a.Heads, a.KVHeads))
	}
	if d && heads && a.HeadDim == 0 && a.DModel%a.Heads != 0 {
		p.add("head_dim", fmt.Sprintf("must be given: it cannot default to d_model/n_heads because d_model (%d) is not a multiple of n_heads (%d)", a.DModel, a.Heads))
	}
	switch a.MLP {
	case MLPGated, MLPPlain:
	case "":
		p.add("mlp", `is missing: must be "gated" or "plain"`)
	default:
		p.add("mlp", fmt.Sprintf(`unknown kind %q: must be "gated" or "plain"`, a.MLP))
	}
	if p.size("d_ff", a.DFF, true) {
		a.validateFeedForward(&p)
	}
	if a.MoE != nil {
		a.MoE.validate(&p, a.Layers)
	}
	if len(p) == 0 {
		if total, _ := a.paramCounts(); total.Cmp(big.NewInt(MaxParams)) > 0 {
			p.add("", fmt.Sprintf("architecture has %s parameters, more than the cap of %d", total, MaxParams))
		}
	}
	return p.err()
}

// validateFeedForward checks d_ff against the kind of feed-forward layers.
func (a Architecture) validateFeedForward(p *problems) {
	switch {
	case a.MoE == nil && a.DFF == 0:
		p.add("d_ff", "must be positive for a dense model")
	case a.MoE != nil && a.MoE.DenseLayers == 0 && a.DFF != 0:
		p.add("d_ff", "must be 0 for a mixture-of-experts model without dense layers: the experts' width is moe.d_ff_expert")
	case a.MoE != nil && a.MoE.DenseLayers > 0 && a.DFF == 0:
		p.add("d_ff", "must be positive: it is the width of the moe.n_dense_layers dense layers")
	}
}

func (m *MoE) validate(p *problems, layers int64) {
	experts := p.size("moe.n_experts", m.Experts, false)
	if p.size("moe.top_k", m.TopK, false) && experts && m.TopK > m.Experts {
		p.add("moe.top_k", fmt.Sprintf("(%d) must not exceed moe.n_experts (%d)", m.TopK, m.Experts))
	}
	p.size("moe.d_ff_expert", m.DFFExpert, false)
	shared := p.size("moe.n_shared", m.Shared, true)
	if p.size("moe.d_ff_shared", m.DFFShared, true) && shared {
		switch {
		case m.Shared > 0 && m.DFFShared == 0:
			p.add("moe.d_ff_shared", "must be positive when moe.n_shared is set")
		case m.Shared == 0 && m.DFFShared != 0:
			p.add("moe.d_ff_shared", "must be 0 when moe.n_shared is 0")
		}
	}
	if p.size("moe.n_dense_layers", m.DenseLayers, true) && layers > 0 && m.DenseLayers > layers {
		p.add("moe.n_dense_layers", fmt.Sprintf("(%d) must not exceed n_layers (%d)", m.DenseLayers, layers))
	}
}

// Nest returns the problems of err under a parent field: "n_heads" under
// "architecture" becomes "architecture.n_heads", and a problem of the whole
// input becomes one of the parent. An error that is not a ValidationError
// becomes a single problem of the parent.
func Nest(parent string, err error) []Problem {
	var ve ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Field: parent, Message: err.Error()}}
	}
	out := make([]Problem, len(ve.Problems))
	for i, p := range ve.Problems {
		switch {
		case parent == "":
		case p.Field == "":
			p.Field = parent
		default:
			p.Field = parent + "." + p.Field
		}
		out[i] = p
	}
	return out
}
