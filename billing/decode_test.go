package billing

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodePlan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		input string
		check func(t *testing.T, p Plan)
	}{
		{
			name: "request plan, create body",
			input: `{"name": "list-price", "kind": "request", "effective_from": "2026-01-01", "prices": {
				"default": {"per_request": "0", "input_per_mtok": "3", "cached_input_per_mtok": "0.3", "output_per_mtok": "15"},
				"gpt-4o": {"input_per_mtok": "2.50", "output_per_mtok": "10"}}}`,
			check: func(t *testing.T, p Plan) {
				if p.Name != "list-price" || p.Kind != KindRequest || len(p.Versions) != 1 {
					t.Fatalf("plan = %+v", p)
				}
				v := p.Versions[0]
				if v.EffectiveFrom != NewDate(2026, 1, 1) || v.Kind != KindRequest {
					t.Errorf("version = %+v", v)
				}
				def, own := v.Request["default"], v.Request["gpt-4o"]
				equalDecimal(t, "default cached", d("0.3"), def.CachedInput())
				equalDecimal(t, "default output", d("15"), def.OutputPerMTok)
				equalDecimal(t, "gpt-4o per request (absent)", d("0"), own.PerRequest)
				equalDecimal(t, "gpt-4o input", d("2.5"), own.InputPerMTok)
				if own.CachedInputPerMTok != nil {
					t.Errorf("gpt-4o cached = %s, want unset", own.CachedInputPerMTok)
				}
				equalDecimal(t, "gpt-4o cached (input price)", d("2.5"), own.CachedInput())
			},
		},
		{
			name:  "FLOPs plan, split prices",
			input: `{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "prefill_per_tflop": "0.00002", "decode_per_tflop": "0.00003"}`,
			check: func(t *testing.T, p Plan) {
				v := p.Versions[0]
				equalDecimal(t, "prefill", d("0.00002"), v.PrefillPerTFLOP)
				equalDecimal(t, "decode", d("0.00003"), v.DecodePerTFLOP)
			},
		},
		{
			name:  "FLOPs plan, per_tflop shorthand",
			input: `{"name": "flops-tariff", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "0.00002"}`,
			check: func(t *testing.T, p Plan) {
				v := p.Versions[0]
				equalDecimal(t, "prefill", d("0.00002"), v.PrefillPerTFLOP)
				equalDecimal(t, "decode", d("0.00002"), v.DecodePerTFLOP)
			},
		},
		{
			name: "versions array, as MarshalJSON writes it",
			input: `{"name": "t", "kind": "flops", "versions": [
				{"effective_from": "2026-01-01", "prefill_per_tflop": "1", "decode_per_tflop": "2"},
				{"effective_from": "2026-02-01", "per_tflop": "3"}]}`,
			check: func(t *testing.T, p Plan) {
				if len(p.Versions) != 2 || p.Versions[1].EffectiveFrom != NewDate(2026, 2, 1) {
					t.Fatalf("versions = %+v", p.Versions)
				}
				equalDecimal(t, "second decode", d("3"), p.Versions[1].DecodePerTFLOP)
			},
		},
		{
			name:  "request plan without default, null cached price",
			input: `{"name": "a.b_c-1", "kind": "request", "effective_from": "2026-01-01", "prices": {"m": {"input_per_mtok": "0.000000000000000001", "cached_input_per_mtok": null, "output_per_mtok": "1000000000"}}}`,
			check: func(t *testing.T, p Plan) {
				if _, ok := p.Versions[0].PricesFor("other"); ok {
					t.Error("a model without entry is priced by a plan without default")
				}
				equalDecimal(t, "cached", d("0.000000000000000001"), p.Versions[0].Request["m"].CachedInput())
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := DecodePlan([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
			// What MarshalJSON writes decodes to the same plan.
			out, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			q, err := DecodePlan(out)
			if err != nil {
				t.Fatalf("DecodePlan(%s): %v", out, err)
			}
			again, _ := json.Marshal(q)
			if string(again) != string(out) {
				t.Errorf("round trip:\n%s\n%s", out, again)
			}
		})
	}
}

func TestMarshalPlan(t *testing.T) {
	t.Parallel()
	p := listPrice(t)
	p, _ = p.WithVersion(NewRequestVersion(day(t, "2026-03-01"), map[string]RequestPrices{
		"gpt-4o": {PerRequest: d("0.0010"), InputPerMTok: d("2.50"), OutputPerMTok: d("1E1")},
	}))
	got, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"list-price","kind":"request","versions":[` +
		`{"effective_from":"2026-01-01","prices":{"default":{"per_request":"0","input_per_mtok":"3","cached_input_per_mtok":"0.3","output_per_mtok":"15"}}},` +
		`{"effective_from":"2026-03-01","prices":{"gpt-4o":{"per_request":"0.001","input_per_mtok":"2.5","output_per_mtok":"10"}}}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	f, err := json.Marshal(NewFLOPsVersion(day(t, "2026-01-01"), d("0.000020"), d("2E-5")))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"effective_from":"2026-01-01","prefill_per_tflop":"0.00002","decode_per_tflop":"0.00002"}`; string(f) != want {
		t.Errorf("got  %s\nwant %s", f, want)
	}
	if _, err := json.Marshal(Version{}); err == nil {
		t.Error("a version of no kind was written")
	}
}

// problemsOf returns the problems of a ValidationError as "field: message"
// lines, or fails.
func problemsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v, want a ValidationError", err)
	}
	var out []string
	for _, p := range ve.Problems {
		out = append(out, p.Field+": "+p.Message)
	}
	return out
}

func TestDecodePlanProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		input string
		want  []string // every problem, in order
	}{
		{
			name: "every problem of a request plan at once",
			input: `{"name": "list price/2026", "kind": "request", "effective_from": "2026-13-01", "colour": "blue", "prices": {
				"default": {"per_request": "-1", "input_per_mtok": "abc", "cached_input_per_mtok": 0.3, "output_per_mtok": "1e5"},
				"gpt-4o": {"input_per_mtok": "1000000000.5", "cached_input_per_mtok": "0.0000000000000000001", "Output_per_mtok": "15"},
				"": {"input_per_mtok": "1", "output_per_mtok": "1"}}}`,
			want: []string{
				`effective_from: must be a real day written YYYY-MM-DD, not "2026-13-01"`,
				`colour: is not a field of a request plan version`,
				`prices.default.input_per_mtok: must be a plain decimal number such as "0.3", not "abc"`,
				`prices.default.cached_input_per_mtok: must be a decimal number in a JSON string, such as "0.3"`,
				`prices.default.output_per_mtok: must be a plain decimal number such as "0.3", not "1e5"`,
				`prices.gpt-4o.Output_per_mtok: is not a price field (per_request, input_per_mtok, cached_input_per_mtok, output_per_mtok)`,
				`prices.gpt-4o.output_per_mtok: is required`,
				`name: may contain only ASCII letters, digits, '.', '_' and '-'`,
				`prices.: model name must not be empty`,
				`prices.default.per_request: must not be negative`,
				`prices.gpt-4o.input_per_mtok: must be at most 1000000000`,
				`prices.gpt-4o.cached_input_per_mtok: has more than 18 decimal places`,
			},
		},
		{
			name:  "FLOPs plan: missing date, missing decode price, negative prefill",
			input: `{"name": "-x", "kind": "flops", "prefill_per_tflop": "-0.1"}`,
			want: []string{
				`decode_per_tflop: is required`,
				`name: must start with a letter or a digit`,
				`effective_from: is required`,
				`prefill_per_tflop: must not be negative`,
			},
		},
		{
			name:  "FLOPs plan: shorthand mixed with split prices, request field",
			input: `{"name": "x", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "1", "decode_per_tflop": "1", "prices": {}}`,
			want: []string{
				`prices: is not a field of a flops plan version`,
				`per_tflop: give either per_tflop or prefill_per_tflop and decode_per_tflop, not both`,
			},
		},
		{
			name:  "request plan without prices, date before 1970",
			input: `{"name": "x", "kind": "request", "effective_from": "1969-12-31"}`,
			want: []string{
				`effective_from: must not be before 1970-01-01`,
				`prices: must price at least one model, or "default"`,
			},
		},
		{
			name:  "unknown kind stops at the head",
			input: `{"name": "", "kind": "tokens", "effective_from": "nope"}`,
			want:  []string{`name: is required`, `kind: must be "request" or "flops"`},
		},
		{
			name:  "missing kind, name not a string",
			input: `{"name": 7}`,
			want:  []string{`name: must be a string`, `kind: is required`},
		},
		{
			name:  "repeated fields",
			input: `{"name": "x", "name": "y", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "1", "per_tflop": "2"}`,
			want:  []string{`name: appears more than once`, `per_tflop: appears more than once`},
		},
		{
			name: "versions out of order, with inline fields",
			input: `{"name": "x", "kind": "flops", "per_tflop": "1", "versions": [
				{"effective_from": "2026-02-01", "per_tflop": "1"},
				{"effective_from": "2026-02-01", "per_tflop": "1"},
				[],
				{"effective_from": "2026-01-01", "per_tflop": "1"}]}`,
			want: []string{
				`per_tflop: is not allowed with "versions"`,
				`versions[2]: must be a JSON object`,
				`versions[1].effective_from: must be later than every earlier version's (latest 2026-02-01)`,
				`versions[3].effective_from: must be later than every earlier version's (latest 2026-02-01)`,
			},
		},
		{
			name:  "no versions",
			input: `{"name": "x", "kind": "flops", "versions": []}`,
			want:  []string{`versions: a plan needs at least one version`},
		},
		{
			name:  "name too long",
			input: `{"name": "` + strings.Repeat("a", 65) + `", "kind": "flops", "effective_from": "2026-01-01", "per_tflop": "1"}`,
			want:  []string{`name: is 65 bytes; the limit is 64`},
		},
		{"malformed JSON", `{"name": "x",}`, []string{`: malformed JSON: invalid character '}' looking for beginning of object key string`}},
		{"not an object", `["x"]`, []string{`: must be a JSON object`}},
		{"trailing data", `{"name": "x"} {}`, []string{`: malformed JSON: data after the object`}},
		{"empty", ``, []string{`: malformed JSON: EOF`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := DecodePlan([]byte(tc.input))
			if err == nil {
				t.Fatalf("decoded %+v", p)
			}
			got := problemsOf(t, err)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestDecodeVersion(t *testing.T) {
	t.Parallel()
	v, err := DecodeVersion(KindFLOPs, []byte(`{"effective_from": "2026-03-01", "per_tflop": "0.00003"}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != KindFLOPs || v.EffectiveFrom != NewDate(2026, 3, 1) {
		t.Errorf("version = %+v", v)
	}
	equalDecimal(t, "decode", d("0.00003"), v.DecodePerTFLOP)

	_, err = DecodeVersion(KindRequest, []byte(`{"name": "x", "kind": "request", "effective_from": "2026-03-01", "prices": {"default": {"input_per_mtok": "1"}}}`))
	want := []string{
		`name: is not a field of a request plan version`,
		`kind: is not a field of a request plan version`,
		`prices.default.output_per_mtok: is required`,
	}
	if got := problemsOf(t, err); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := DecodeVersion("tokens", []byte(`{}`)); err == nil {
		t.Error("decoded a version of an unknown kind")
	}
}

func TestPlanValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		plan Plan
		want []string
	}{
		{"valid", listPrice(t), nil},
		{
			name: "hand-built mistakes",
			plan: Plan{Name: "x", Kind: KindFLOPs, Versions: []Version{
				{Kind: KindFLOPs, PrefillPerTFLOP: d("1"), DecodePerTFLOP: d("1"), Request: map[string]RequestPrices{}},
				NewRequestVersion(NewDate(2026, 1, 1), nil),
			}},
			want: []string{
				`versions[0].effective_from: is required`,
				`versions[0].prices: is not a field of a FLOPs plan`,
				`versions[1]: is a version of a "request" plan, not "flops"`,
			},
		},
		{
			name: "per-TFLOP prices in a request plan, no versions kind check without a kind",
			plan: Plan{Name: "x", Kind: KindRequest, Versions: []Version{
				{Kind: KindRequest, EffectiveFrom: NewDate(2026, 1, 1), Request: map[string]RequestPrices{"m": {InputPerMTok: d("1"), OutputPerMTok: d("1")}}, DecodePerTFLOP: d("1")},
			}},
			want: []string{`versions[0]: a request plan has no per-TFLOP prices`},
		},
		{"empty", Plan{}, []string{`name: is required`, `kind: is required`, `versions: a plan needs at least one version`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.plan.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if got := problemsOf(t, err); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
