package billing

import (
	"encoding/json"
	"fmt"
)

// The JSON written for plans and versions. Amounts are plain decimal strings
// (plain), never numbers, and never depend on shopspring/decimal's globals.
type (
	planJSON struct {
		Name     string    `json:"name"`
		Kind     Kind      `json:"kind"`
		Versions []Version `json:"versions"`
	}
	requestVersionJSON struct {
		EffectiveFrom Date                         `json:"effective_from"`
		Prices        map[string]requestPricesJSON `json:"prices"`
	}
	requestPricesJSON struct {
		PerRequest         string  `json:"per_request"`
		InputPerMTok       string  `json:"input_per_mtok"`
		CachedInputPerMTok *string `json:"cached_input_per_mtok,omitempty"`
		OutputPerMTok      string  `json:"output_per_mtok"`
	}
	flopsVersionJSON struct {
		EffectiveFrom   Date   `json:"effective_from"`
		PrefillPerTFLOP string `json:"prefill_per_tflop"`
		DecodePerTFLOP  string `json:"decode_per_tflop"`
	}
)

// MarshalJSON writes {"name", "kind", "versions": [...]}, each version as
// Version.MarshalJSON writes it; DecodePlan reads it back.
func (p Plan) MarshalJSON() ([]byte, error) {
	vs := p.Versions
	if vs == nil {
		vs = []Version{}
	}
	return json.Marshal(planJSON{Name: p.Name, Kind: p.Kind, Versions: vs})
}

// MarshalJSON writes v as the body DecodeVersion reads: effective_from and
// prices for a request version (models in sorted order, with
// cached_input_per_mtok only when it is set), effective_from,
// prefill_per_tflop and decode_per_tflop for a FLOPs version. A version of
// an unknown kind is an error.
func (v Version) MarshalJSON() ([]byte, error) {
	switch v.Kind {
	case KindRequest:
		prices := make(map[string]requestPricesJSON, len(v.Request))
		for model, p := range v.Request {
			j := requestPricesJSON{
				PerRequest:    plain(p.PerRequest),
				InputPerMTok:  plain(p.InputPerMTok),
				OutputPerMTok: plain(p.OutputPerMTok),
			}
			if p.CachedInputPerMTok != nil {
				c := plain(*p.CachedInputPerMTok)
				j.CachedInputPerMTok = &c
			}
			prices[model] = j
		}
		return json.Marshal(requestVersionJSON{EffectiveFrom: v.EffectiveFrom, Prices: prices})
	case KindFLOPs:
		return json.Marshal(flopsVersionJSON{
			EffectiveFrom:   v.EffectiveFrom,
			PrefillPerTFLOP: plain(v.PrefillPerTFLOP),
			DecodePerTFLOP:  plain(v.DecodePerTFLOP),
		})
	}
	return nil, fmt.Errorf("billing: cannot write a version of unknown kind %q", v.Kind)
}
