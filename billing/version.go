package billing

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// DefaultModel is the key of a request plan's fallback entry: it prices
// every model without an entry of its own. A model literally named
// "default" is therefore priced by that entry.
const DefaultModel = "default"

// MaxModelNameLength bounds a model name in a plan, in bytes; it matches the
// usage record's limit on model names.
const MaxModelNameLength = 200

// RequestPrices is one model's prices in a request plan, in dollars.
// Each entry is complete on its own: it does not inherit missing fields from
// the default entry.
type RequestPrices struct {
	PerRequest   decimal.Decimal // per request; "per_request", optional in JSON (0)
	InputPerMTok decimal.Decimal // per million uncached input tokens; "input_per_mtok", required
	// CachedInputPerMTok is per million cached input tokens
	// ("cached_input_per_mtok"); nil means the input price applies, as when
	// a provider gives no cache discount.
	CachedInputPerMTok *decimal.Decimal
	OutputPerMTok      decimal.Decimal // per million output tokens; "output_per_mtok", required
}

// CachedInput returns the price per million cached input tokens: the cached
// price when set, the input price otherwise.
func (r RequestPrices) CachedInput() decimal.Decimal {
	if r.CachedInputPerMTok != nil {
		return *r.CachedInputPerMTok
	}
	return r.InputPerMTok
}

// Version is a plan's prices from EffectiveFrom (a UTC day, inclusive) until
// the next version's EffectiveFrom. Kind says which fields apply: Request
// for a request plan, PrefillPerTFLOP and DecodePerTFLOP (dollars per 10^12
// FLOPs) for a FLOPs plan. Build one with NewRequestVersion or
// NewFLOPsVersion, or decode it with DecodeVersion.
type Version struct {
	Kind          Kind
	EffectiveFrom Date
	// Request maps a model name, or DefaultModel, to its prices.
	Request         map[string]RequestPrices
	PrefillPerTFLOP decimal.Decimal
	DecodePerTFLOP  decimal.Decimal
}

// NewRequestVersion returns a request-plan version.
func NewRequestVersion(from Date, prices map[string]RequestPrices) Version {
	return Version{Kind: KindRequest, EffectiveFrom: from, Request: prices}
}

// NewFLOPsVersion returns a FLOPs-plan version with its prefill and decode
// prices per TFLOP.
func NewFLOPsVersion(from Date, prefillPerTFLOP, decodePerTFLOP decimal.Decimal) Version {
	return Version{Kind: KindFLOPs, EffectiveFrom: from, PrefillPerTFLOP: prefillPerTFLOP, DecodePerTFLOP: decodePerTFLOP}
}

// PricesFor returns the prices that apply to model: its own entry, else the
// default entry. ok is false when there is neither: the model is unpriced
// under this version (a request plan without a default entry is allowed, and
// then prices only the models it names).
func (v Version) PricesFor(model string) (RequestPrices, bool) {
	if p, ok := v.Request[model]; ok {
		return p, true
	}
	p, ok := v.Request[DefaultModel]
	return p, ok
}

// Validate reports every problem with v as a version of a plan of kind k,
// with the JSON field names of a version body ("effective_from",
// "prices.gpt-4o.output_per_mtok"). See Plan.Validate for the rules.
func (v Version) Validate(k Kind) error {
	var ps problems
	v.validate(&ps, "", k)
	return ps.err()
}

// minDate is the earliest effective date a plan accepts: no usage predates
// it, and it keeps the zero Date (year 1) apart from real dates.
var minDate = NewDate(1970, 1, 1)

func (v Version) validate(ps *problems, prefix string, k Kind) {
	switch {
	case v.EffectiveFrom.IsZero():
		ps.add(join(prefix, "effective_from"), "is required")
	case v.EffectiveFrom.Before(minDate):
		ps.add(join(prefix, "effective_from"), "must not be before %s", minDate)
	}
	if v.Kind != k {
		// Only a hand-built Version can get here; decoding sets the kind.
		ps.add(prefix, "is a version of a %q plan, not %q", v.Kind, k)
		return
	}
	switch k {
	case KindRequest:
		if len(v.Request) == 0 {
			ps.add(join(prefix, "prices"), "must price at least one model, or %q", DefaultModel)
		}
		for _, model := range slices.Sorted(maps.Keys(v.Request)) {
			field := join(prefix, "prices."+model)
			checkModelName(ps, field, model)
			p := v.Request[model]
			checkPrice(ps, field+".per_request", p.PerRequest)
			checkPrice(ps, field+".input_per_mtok", p.InputPerMTok)
			if p.CachedInputPerMTok != nil {
				checkPrice(ps, field+".cached_input_per_mtok", *p.CachedInputPerMTok)
			}
			checkPrice(ps, field+".output_per_mtok", p.OutputPerMTok)
		}
		if !v.PrefillPerTFLOP.IsZero() || !v.DecodePerTFLOP.IsZero() {
			ps.add(prefix, "a request plan has no per-TFLOP prices")
		}
	case KindFLOPs:
		checkPrice(ps, join(prefix, "prefill_per_tflop"), v.PrefillPerTFLOP)
		checkPrice(ps, join(prefix, "decode_per_tflop"), v.DecodePerTFLOP)
		if v.Request != nil {
			ps.add(join(prefix, "prices"), "is not a field of a FLOPs plan")
		}
	}
}

// checkModelName reports an empty, overlong or unprintable model name.
func checkModelName(ps *problems, field, model string) {
	switch {
	case model == "":
		ps.add(field, "model name must not be empty")
	case len(model) > MaxModelNameLength:
		ps.add(field, "model name is %d bytes; the limit is %d", len(model), MaxModelNameLength)
	case !utf8.ValidString(model):
		ps.add(field, "model name is not valid UTF-8")
	case strings.ContainsFunc(model, func(c rune) bool { return c < 0x20 || c == 0x7f }):
		ps.add(field, "model name must not contain control characters")
	}
}
