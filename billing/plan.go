package billing

import (
	"fmt"
	"slices"
	"time"
)

// Kind is the kind of a plan: what it charges for.
type Kind string

// The two kinds of plan.
const (
	KindRequest Kind = "request" // per request and per million tokens
	KindFLOPs   Kind = "flops"   // per TFLOP of prefill and decode
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k == KindRequest || k == KindFLOPs }

// MaxPlanNameLength bounds a plan name, in bytes.
const MaxPlanNameLength = 64

// Plan is a named price plan and its versions, sorted by EffectiveFrom with
// no two on the same day (Validate checks both; VersionAt relies on them).
type Plan struct {
	Name     string
	Kind     Kind
	Versions []Version
}

// VersionAt returns the version in force on the UTC day that t falls in:
// the one with the latest EffectiveFrom on or before that day. A version
// takes effect at 00:00 UTC of its date, so a record at 23:59:59 UTC the day
// before is priced by the previous version. ok is false when t is before
// the first version.
func (p Plan) VersionAt(t time.Time) (Version, bool) {
	day := DateOf(t)
	// The number of versions in force by day; the last of them applies.
	n, _ := slices.BinarySearchFunc(p.Versions, day, func(v Version, d Date) int {
		if v.EffectiveFrom.After(d) {
			return 1
		}
		return -1
	})
	if n == 0 {
		return Version{}, false
	}
	return p.Versions[n-1], true
}

// WithVersion returns a copy of p with v added in date order. A version with
// the same EffectiveFrom as an existing one replaces it, and replaced says
// so: a plan has one set of prices per day, and a correction to a day's
// prices is an upsert. Billing is pure, so history priced afterwards uses
// the new prices, including for days already past; a caller that must not
// rewrite invoiced history checks replaced, or v's date against its cut-off,
// and refuses. The result is not validated: validate v (DecodeVersion does)
// or the result.
func (p Plan) WithVersion(v Version) (q Plan, replaced bool) {
	q = p
	i, found := slices.BinarySearchFunc(p.Versions, v.EffectiveFrom, func(w Version, d Date) int {
		return w.EffectiveFrom.Compare(d)
	})
	q.Versions = slices.Clone(p.Versions)
	if found {
		q.Versions[i] = v
	} else {
		q.Versions = slices.Insert(q.Versions, i, v)
	}
	return q, found
}

// Validate reports every problem with p at once, as a ValidationError whose
// fields are JSON names, versions numbered from 0
// ("versions[1].prices.gpt-4o.output_per_mtok"). The rules:
//
//   - name: 1 to MaxPlanNameLength bytes of ASCII letters, digits, '.', '_'
//     and '-', starting with a letter or digit, so that it is safe as is in a
//     URL path segment;
//   - kind: "request" or "flops";
//   - versions: at least one, in strictly increasing effective_from order
//     (so no two on the same day), each of the plan's kind;
//   - effective_from: set, and not before 1970-01-01;
//   - a request version prices at least one model or "default"; a model
//     name is 1 to MaxModelNameLength bytes of UTF-8 without control
//     characters; a plan without "default" is allowed, and leaves the models
//     it does not name unpriced (pricing them fails with ErrUnpriced);
//   - every price is at least 0, at most MaxPrice, with at most
//     MaxPricePlaces decimal places.
func (p Plan) Validate() error {
	var ps problems
	p.validate(&ps, false)
	return ps.err()
}

// validate checks p; inline says that p came from a create body with its one
// version inline, whose fields are then named without a "versions[0]"
// prefix.
func (p Plan) validate(ps *problems, inline bool) {
	checkPlanHead(ps, p.Name, p.Kind)
	if len(p.Versions) == 0 {
		ps.add("versions", "a plan needs at least one version")
	}
	var latest Date // the latest date so far; a missing date is only "is required"
	for i, v := range p.Versions {
		prefix := ""
		if !inline {
			prefix = fmt.Sprintf("versions[%d]", i)
		}
		if p.Kind.Valid() {
			v.validate(ps, prefix, p.Kind)
		}
		if v.EffectiveFrom.IsZero() {
			continue
		}
		if !v.EffectiveFrom.After(latest) {
			ps.add(join(prefix, "effective_from"), "must be later than every earlier version's (latest %s)", latest)
			continue
		}
		latest = v.EffectiveFrom
	}
}

// checkPlanHead checks a plan's name and kind.
func checkPlanHead(ps *problems, name string, kind Kind) {
	switch {
	case name == "":
		ps.add("name", "is required")
	case len(name) > MaxPlanNameLength:
		ps.add("name", "is %d bytes; the limit is %d", len(name), MaxPlanNameLength)
	case !isAlnum(name[0]):
		ps.add("name", "must start with a letter or a digit")
	default:
		for i := 0; i < len(name); i++ {
			if c := name[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
				ps.add("name", "may contain only ASCII letters, digits, '.', '_' and '-'")
				break
			}
		}
	}
	switch {
	case kind == "":
		ps.add("kind", "is required")
	case !kind.Valid():
		ps.add("kind", "must be %q or %q", KindRequest, KindFLOPs)
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
