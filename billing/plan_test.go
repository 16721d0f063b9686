package billing

import (
	"errors"
	"testing"
	"time"
)

// tariff returns a FLOPs plan with one version per (date, price) pair, the
// same price for prefill and decode.
func tariff(t *testing.T, pairs ...string) Plan {
	t.Helper()
	p := Plan{Name: "flops-tariff", Kind: KindFLOPs}
	for i := 0; i < len(pairs); i += 2 {
		p.Versions = append(p.Versions, NewFLOPsVersion(day(t, pairs[i]), d(pairs[i+1]), d(pairs[i+1])))
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersionAt(t *testing.T) {
	t.Parallel()
	p := tariff(t, "2026-01-01", "0.00002", "2026-03-01", "0.00003")
	berlin := time.FixedZone("UTC+1", 3600)
	for _, tc := range []struct {
		name string
		at   time.Time
		want string // effective_from of the version in force, "" for none
	}{
		{"long before the first version", time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), ""},
		{"last instant before the first version", time.Date(2025, 12, 31, 23, 59, 59, 999999999, time.UTC), ""},
		{"first version's day at UTC midnight", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "2026-01-01"},
		{"between versions", time.Date(2026, 2, 14, 9, 0, 0, 0, time.UTC), "2026-01-01"},
		{"the day before the second version", time.Date(2026, 2, 28, 23, 59, 59, 0, time.UTC), "2026-01-01"},
		{"the second version's day at UTC midnight", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), "2026-03-01"},
		{"the second version's day, end", time.Date(2026, 3, 1, 23, 59, 59, 0, time.UTC), "2026-03-01"},
		{"local midnight is still the day before in UTC", time.Date(2026, 3, 1, 0, 30, 0, 0, berlin), "2026-01-01"},
		{"after the last version", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), "2026-03-01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, ok := p.VersionAt(tc.at)
			if got := v.EffectiveFrom.String(); ok != (tc.want != "") || got != tc.want {
				t.Errorf("VersionAt(%s) = %q, %v; want %q", tc.at, got, ok, tc.want)
			}
		})
	}
}

func TestWithVersion(t *testing.T) {
	t.Parallel()
	base := tariff(t, "2026-01-01", "0.00002", "2026-03-01", "0.00003")
	for _, tc := range []struct {
		name         string
		add          Version
		wantDates    []string
		wantReplaced bool
	}{
		{"appended", NewFLOPsVersion(day(t, "2026-06-01"), d("1"), d("1")), []string{"2026-01-01", "2026-03-01", "2026-06-01"}, false},
		{"inserted in the middle", NewFLOPsVersion(day(t, "2026-02-01"), d("1"), d("1")), []string{"2026-01-01", "2026-02-01", "2026-03-01"}, false},
		{"inserted first", NewFLOPsVersion(day(t, "2025-12-01"), d("1"), d("1")), []string{"2025-12-01", "2026-01-01", "2026-03-01"}, false},
		{"same day replaces", NewFLOPsVersion(day(t, "2026-03-01"), d("1"), d("1")), []string{"2026-01-01", "2026-03-01"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, replaced := base.WithVersion(tc.add)
			if replaced != tc.wantReplaced {
				t.Errorf("replaced = %v, want %v", replaced, tc.wantReplaced)
			}
			var dates []string
			for _, v := range got.Versions {
				dates = append(dates, v.EffectiveFrom.String())
			}
			if len(dates) != len(tc.wantDates) {
				t.Fatalf("dates = %v, want %v", dates, tc.wantDates)
			}
			for i := range dates {
				if dates[i] != tc.wantDates[i] {
					t.Fatalf("dates = %v, want %v", dates, tc.wantDates)
				}
			}
			if err := got.Validate(); err != nil {
				t.Errorf("result does not validate: %v", err)
			}
			if len(base.Versions) != 2 || !base.Versions[1].PrefillPerTFLOP.Equal(d("0.00003")) {
				t.Errorf("WithVersion changed its receiver: %v", base.Versions)
			}
		})
	}
}

// TestRepricing: pricing is a pure function of the plan, so adding a version
// reprices the usage of its days and of no other day.
func TestRepricing(t *testing.T) {
	t.Parallel()
	before := tariff(t, "2026-01-01", "0.00002")
	after, _ := before.WithVersion(NewFLOPsVersion(day(t, "2026-02-01"), d("0.00001"), d("0.00004")))
	u := Usage{Model: "any", Requests: 1, PrefillFLOPs: d("3000000000000000"), DecodeFLOPs: d("500000000000000")} // 3,000 and 500 TFLOPs
	for _, tc := range []struct {
		name string
		plan Plan
		at   time.Time
		want string
	}{
		{"January, old plan", before, time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), "0.07"},     // 3,500 × 0.00002
		{"February, old plan", before, time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC), "0.07"},    // 3,500 × 0.00002
		{"January, new plan", after, time.Date(2026, 1, 31, 23, 59, 0, 0, time.UTC), "0.07"},    // unchanged
		{"February, new plan", after, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), "0.05"},      // 3,000 × 0.00001 + 500 × 0.00004
		{"a later month, new plan", after, time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), "0.05"}, // still the last version
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.plan.Price(u, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			equalDecimal(t, "cost", d(tc.want), got)
		})
	}
	if _, err := after.Price(u, time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)); !errors.Is(err, ErrNoVersion) {
		t.Errorf("price before the first version: error %v, want ErrNoVersion", err)
	}
}

func TestKindValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind Kind
		want bool
	}{{KindRequest, true}, {KindFLOPs, true}, {"", false}, {"FLOPS", false}, {"tokens", false}} {
		if got := tc.kind.Valid(); got != tc.want {
			t.Errorf("Kind(%q).Valid() = %v, want %v", tc.kind, got, tc.want)
		}
	}
}
