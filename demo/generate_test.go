package demo

import (
	"crypto/sha256"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/usage"
)

// digest generates the data set of now and returns a hash of it and its
// size; it fails t on an invalid record, a repeated id, or records out of
// time order.
func digest(t *testing.T, now time.Time) ([32]byte, int) {
	t.Helper()
	h := sha256.New()
	ids := map[string]bool{}
	var last time.Time
	n := 0
	err := generate(newPeriod(now), func(r usage.Record) error {
		n++
		if err := r.Validate(); err != nil {
			t.Fatalf("record %s: %v", r.ID, err)
		}
		if ids[r.ID] {
			t.Fatalf("id %s repeated", r.ID)
		}
		ids[r.ID] = true
		// Ingestion stops at hour boundaries to evaluate alerts: records
		// may be unordered within an hour, never across hours.
		if hour := r.OccurredAt.Truncate(time.Hour); hour.Before(last) {
			t.Fatalf("record %s at %s comes after one at %s", r.ID, r.OccurredAt, last)
		} else {
			last = hour
		}
		b, _ := json.Marshal(r)
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, n
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 20, 9, 30, 0, 0, time.UTC)
	a, n := digest(t, now)
	b, _ := digest(t, now.Add(time.Hour)) // the same day gives the same data
	if a != b {
		t.Error("two runs generated different data sets")
	}
	if n < 100_000 || n > 200_000 {
		t.Errorf("%d records; want 100k to 200k", n)
	}
}

// TestBudgetsAnyDay checks that the budgets are valid and in the states
// they are meant to be in, whichever day of the month Seed runs.
func TestBudgetsAnyDay(t *testing.T) {
	t.Parallel()
	for _, now := range []time.Time{
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), // nothing spent yet this month
		time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 31, 23, 0, 0, 0, time.UTC),
	} {
		p := newPeriod(now)
		c, err := calibrate(p, requestPlan(p))
		if err != nil {
			t.Fatal(err)
		}
		if !c.tariff().IsPositive() {
			t.Errorf("%s: tariff %s", now, c.tariff())
		}
		for _, b := range budgets(p, c) {
			got, err := b.in.Validate(b.workload)
			if err != nil {
				t.Errorf("%s: budget of %s: %v", now, b.workload, err)
				continue
			}
			state := stateAt(p, c, got)
			want := budget.OK
			switch {
			case now.Day() == 1:
			case b.workload == "code-assistant":
				want = budget.AtRisk
			case b.workload == surgeWorkload:
				want = budget.Exceeded
			}
			if state != want {
				t.Errorf("%s: budget of %s (%s %s) is %s; want %s", now, b.workload, got.Amount, got.Kind, state, want)
			}
		}
	}
}

// stateAt is the state of b at p's now, computed as budget.Status does.
func stateAt(p period, c calibration, b budget.Budget) string {
	start := time.Date(p.now.Year(), p.now.Month(), 1, 0, 0, 0, 0, time.UTC)
	f := c.sum(b.Workload, int(start.Sub(p.first).Hours())/24, Days)
	spent := f.cost
	if b.Kind == budget.TFLOPs {
		spent = f.flops.Shift(-12)
	}
	forecast := spent
	if done := p.now.Sub(start).Milliseconds(); done > 0 {
		forecast = spent.Mul(decimal.NewFromInt(start.AddDate(0, 1, 0).Sub(start).Milliseconds())).DivRound(decimal.NewFromInt(done), 12)
	}
	switch {
	case spent.GreaterThanOrEqual(b.Amount):
		return budget.Exceeded
	case forecast.GreaterThanOrEqual(b.Amount):
		return budget.AtRisk
	}
	return budget.OK
}

func TestSignificant(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int32
		want string
	}{
		{"0.0000150525", 2, "0.000015"},
		{"18206.11", 2, "18000"},
		{"18206.11", 3, "18200"},
		{"9.96", 2, "10"},
		{"1", 2, "1"},
	} {
		if got := significant(decimal.RequireFromString(c.in), c.n); !got.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("significant(%s, %d) = %s; want %s", c.in, c.n, got, c.want)
		}
	}
}
