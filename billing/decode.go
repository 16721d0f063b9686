package billing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"
)

// DecodePlan reads a plan from the API's JSON and validates it, reporting
// every problem at once as a ValidationError (see Plan.Validate for the
// rules). Two shapes are accepted:
//
//   - the create body, one version inline:
//     {"name": "list-price", "kind": "request", "effective_from": "2026-01-01",
//     "prices": {"default": {"per_request": "0", "input_per_mtok": "3",
//     "cached_input_per_mtok": "0.3", "output_per_mtok": "15"}}}
//     or {"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01",
//     "prefill_per_tflop": "0.00002", "decode_per_tflop": "0.00002"};
//     problems are named as in that body ("prices.default.output_per_mtok");
//   - what Plan.MarshalJSON writes: {"name", "kind", "versions": [body, …]}
//     with versions in increasing effective_from order; problems are named
//     "versions[i]. …".
//
// The decoding is strict: field names are exact and case-sensitive, an
// unknown or repeated field is a problem, and amounts are JSON strings in
// plain decimal notation (see the version body in DecodeVersion). A plan
// whose kind is missing or unknown is not decoded further: the rest of its
// problems depend on the kind.
func DecodePlan(data []byte) (Plan, error) {
	ms, err := readObject(data)
	if err != nil {
		return Plan{}, err
	}
	var d decoder
	var p Plan
	var versions json.RawMessage
	var body []member
	seen := make(map[string]bool, 3)
	for _, m := range ms {
		if (m.key == "name" || m.key == "kind" || m.key == "versions") && seen[m.key] {
			d.ps.add(m.key, "appears more than once")
			continue
		}
		seen[m.key] = true
		switch m.key {
		case "name":
			p.Name = d.str(m.key, m.value)
		case "kind":
			p.Kind = Kind(d.str(m.key, m.value))
		case "versions":
			versions = m.value
		default:
			body = append(body, m)
		}
	}
	if !p.Kind.Valid() {
		checkPlanHead(&d.ps, p.Name, p.Kind)
		return Plan{}, d.err()
	}
	inline := versions == nil
	if inline {
		p.Versions = []Version{d.version("", p.Kind, body)}
	} else {
		for _, m := range body {
			d.ps.add(m.key, "is not allowed with \"versions\"")
		}
		d.versions(p.Kind, versions, &p)
	}
	p.validate(&d.ps, inline)
	if err := d.err(); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// DecodeVersion reads and validates the body of a new version for a plan of
// kind k: the plan's create body without name and kind. For a request plan:
//
//	{"effective_from": "2026-03-01", "prices": {"default": {...}, "MODEL": {...}}}
//
// where each entry has "input_per_mtok" and "output_per_mtok" (required),
// "per_request" (optional, "0" when absent) and "cached_input_per_mtok"
// (optional; absent or null means the input price applies). For a FLOPs
// plan:
//
//	{"effective_from": "2026-03-01", "prefill_per_tflop": "0.00002", "decode_per_tflop": "0.00003"}
//
// or, as a shorthand for the same price in both phases,
// {"effective_from": "2026-03-01", "per_tflop": "0.00002"}; the shorthand
// and the split prices cannot be mixed. The shorthand is read only: a
// version is always written with both prices.
//
// Amounts are JSON strings in plain decimal notation ("0.3", "15"): a JSON
// number is refused, because many clients turn it into a binary float on the
// way, and so is exponent notation ("1e5"). Dates are "YYYY-MM-DD" (UTC
// days). Every problem is reported at once as a ValidationError.
func DecodeVersion(k Kind, data []byte) (Version, error) {
	if !k.Valid() {
		return Version{}, fmt.Errorf("billing: unknown plan kind %q", k)
	}
	ms, err := readObject(data)
	if err != nil {
		return Version{}, err
	}
	var d decoder
	v := d.version("", k, ms)
	v.validate(&d.ps, "", k)
	if err := d.err(); err != nil {
		return Version{}, err
	}
	return v, nil
}

// member is one name/value pair of a JSON object, in input order.
type member struct {
	key   string
	value json.RawMessage
}

// readObject splits a JSON object into its members, in input order, with
// repeated keys kept (the decoder reports them). Malformed JSON, or JSON
// that is not an object, is a ValidationError with one whole-input problem.
func readObject(data []byte) ([]member, error) {
	ms, err := splitObject(data)
	if err != nil {
		return nil, ValidationError{Problems: []Problem{{Message: err.Error()}}}
	}
	return ms, nil
}

var errNotObject = errors.New("must be a JSON object")

func splitObject(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if tok != json.Delim('{') {
		return nil, errNotObject
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("malformed JSON: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("malformed JSON: object key is not a string")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("malformed JSON: %w", err)
		}
		ms = append(ms, member{key: key, value: bytes.TrimSpace(raw)})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("malformed JSON: data after the object")
	}
	return ms, nil
}

// decoder collects problems while it turns JSON members into values; a
// value it cannot read is left zero, and its problem stands for it.
type decoder struct {
	ps problems
}

// err returns the problems found, keeping only the first one for a field
// and its subfields: a value that failed to decode is left zero, and the
// validation that follows must not add a second, misleading problem for it
// ("is required" after "must be a date", "versions[2].effective_from: is
// required" after "versions[2]: must be a JSON object").
func (d *decoder) err() error {
	seen := make(map[string]bool, len(d.ps))
	var out problems
next:
	for _, p := range d.ps {
		// p.Field and each of its ancestors ("a.b.c": "a.b", "a").
		for f := p.Field; f != ""; {
			if seen[f] {
				continue next
			}
			i := strings.LastIndexByte(f, '.')
			if i < 0 {
				break
			}
			f = f[:i]
		}
		seen[p.Field] = true
		out = append(out, p)
	}
	return out.err()
}

// str reads a JSON string; anything else is a problem and gives "".
func (d *decoder) str(field string, raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		d.ps.add(field, "must be a string")
		return ""
	}
	return s
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// amount reads a price: a JSON string in plain decimal notation.
func (d *decoder) amount(field string, raw json.RawMessage) decimal.Decimal {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		d.ps.add(field, "must be a decimal number in a JSON string, such as \"0.3\"")
		return decimal.Decimal{}
	}
	v, err := parseAmount(s)
	if err != nil {
		d.ps.add(field, "%s", err.Error())
		return decimal.Decimal{}
	}
	return v
}

// object reads a nested JSON object and reports repeated keys.
func (d *decoder) object(field string, raw json.RawMessage) ([]member, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		d.ps.add(field, "must be a JSON object")
		return nil, false
	}
	ms, err := splitObject(raw)
	if err != nil {
		d.ps.add(field, "%s", err.Error())
		return nil, false
	}
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		if seen[m.key] {
			d.ps.add(join(field, m.key), "appears more than once")
		}
		seen[m.key] = true
	}
	return ms, true
}

// versions reads the "versions" array of a plan.
func (d *decoder) versions(k Kind, raw json.RawMessage, p *Plan) {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		d.ps.add("versions", "must be a JSON array of versions")
		return
	}
	for i, item := range items {
		prefix := fmt.Sprintf("versions[%d]", i)
		ms, ok := d.object(prefix, bytes.TrimSpace(item))
		if !ok {
			p.Versions = append(p.Versions, Version{Kind: k})
			continue
		}
		p.Versions = append(p.Versions, d.version(prefix, k, ms))
	}
	if len(items) == 0 {
		d.ps.add("versions", "a plan needs at least one version")
	}
}

// version reads a version body of kind k; prefix names it in problems.
func (d *decoder) version(prefix string, k Kind, ms []member) Version {
	v := Version{Kind: k}
	var perTFLOP, prefill, decode json.RawMessage
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		field := join(prefix, m.key)
		if seen[m.key] {
			d.ps.add(field, "appears more than once")
			continue
		}
		seen[m.key] = true
		switch {
		case m.key == "effective_from":
			v.EffectiveFrom = d.date(field, m.value)
		case m.key == "prices" && k == KindRequest:
			v.Request = d.prices(field, m.value)
		case m.key == "per_tflop" && k == KindFLOPs:
			perTFLOP = m.value
		case m.key == "prefill_per_tflop" && k == KindFLOPs:
			prefill = m.value
		case m.key == "decode_per_tflop" && k == KindFLOPs:
			decode = m.value
		default:
			d.ps.add(field, "is not a field of a %s plan version", k)
		}
	}
	if k != KindFLOPs {
		return v
	}
	switch {
	case perTFLOP != nil && (prefill != nil || decode != nil):
		d.ps.add(join(prefix, "per_tflop"), "give either per_tflop or prefill_per_tflop and decode_per_tflop, not both")
	case perTFLOP != nil:
		v.PrefillPerTFLOP = d.amount(join(prefix, "per_tflop"), perTFLOP)
		v.DecodePerTFLOP = v.PrefillPerTFLOP
	default:
		v.PrefillPerTFLOP = d.required(join(prefix, "prefill_per_tflop"), prefill)
		v.DecodePerTFLOP = d.required(join(prefix, "decode_per_tflop"), decode)
	}
	return v
}

// required reads an amount that must be present.
func (d *decoder) required(field string, raw json.RawMessage) decimal.Decimal {
	if raw == nil {
		d.ps.add(field, "is required")
		return decimal.Decimal{}
	}
	return d.amount(field, raw)
}

// date reads a YYYY-MM-DD string; null counts as absent.
func (d *decoder) date(field string, raw json.RawMessage) Date {
	if isNull(raw) {
		return Date{}
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		d.ps.add(field, "must be a date string YYYY-MM-DD")
		return Date{}
	}
	v, err := ParseDate(s)
	if err != nil {
		d.ps.add(field, "must be a real day written YYYY-MM-DD, not %q", s)
		return Date{}
	}
	return v
}

// prices reads a request version's "prices" object.
func (d *decoder) prices(field string, raw json.RawMessage) map[string]RequestPrices {
	ms, ok := d.object(field, raw)
	if !ok {
		return nil
	}
	out := make(map[string]RequestPrices, len(ms))
	for _, m := range ms {
		entry := field + "." + m.key
		fields, ok := d.object(entry, m.value)
		if !ok {
			continue
		}
		var p RequestPrices
		var hasInput, hasOutput bool
		for _, f := range fields {
			switch f.key {
			case "per_request":
				p.PerRequest = d.amount(entry+".per_request", f.value)
			case "input_per_mtok":
				p.InputPerMTok, hasInput = d.amount(entry+".input_per_mtok", f.value), true
			case "cached_input_per_mtok":
				if !isNull(f.value) {
					c := d.amount(entry+".cached_input_per_mtok", f.value)
					p.CachedInputPerMTok = &c
				}
			case "output_per_mtok":
				p.OutputPerMTok, hasOutput = d.amount(entry+".output_per_mtok", f.value), true
			default:
				d.ps.add(entry+"."+f.key, "is not a price field (per_request, input_per_mtok, cached_input_per_mtok, output_per_mtok)")
			}
		}
		if !hasInput {
			d.ps.add(entry+".input_per_mtok", "is required")
		}
		if !hasOutput {
			d.ps.add(entry+".output_per_mtok", "is required")
		}
		out[m.key] = p
	}
	return out
}
