package quote

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/pgtest"
)

// TestPlanCacheSeesItsWritesAtOnceAndOthersAfterTTL runs against a real
// PostgreSQL: a plan written through the cache prices the next estimate;
// one written straight to the store (as another instance of the service
// would) shows once the ttl has passed, and not before.
func TestPlanCacheSeesItsWritesAtOnceAndOthersAfterTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.NewStore(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cache := NewPlanCache(st, 5*time.Second, clock)
	svc := New(catalog.New(nil), bloat.NewCounter()).WithPlans(cache, clock)
	costsOf := func() []Cost {
		t.Helper()
		in, out := int64(1500), int64(300)
		res, err := svc.Estimate(ctx, Request{Model: "llama-3.1-8b", InputTokens: &in, OutputTokens: &out})
		if err != nil {
			t.Fatal(err)
		}
		return res.Costs
	}
	flops := func(name, price string) billing.Plan {
		p := decimal.RequireFromString(price)
		return billing.Plan{Name: name, Kind: billing.KindFLOPs, Versions: []billing.Version{
			billing.NewFLOPsVersion(billing.NewDate(2026, 1, 1), p, p)}}
	}

	if c := costsOf(); len(c) != 0 {
		t.Fatalf("no plans yet, costs = %+v", c)
	}
	if err := cache.CreatePlan(ctx, flops("tariff", "1")); err != nil {
		t.Fatal(err)
	}
	c := costsOf()
	if len(c) != 1 || c[0].Plan != "tariff" || c[0].Cost == nil {
		t.Fatalf("a plan made through the cache must price the next estimate, costs = %+v", c)
	}
	first := *c[0].Cost

	// Another instance adds a version doubling the price from today.
	two := decimal.RequireFromString("2")
	if _, err := st.AddPlanVersion(ctx, "tariff", billing.NewFLOPsVersion(billing.NewDate(2026, 11, 30), two, two)); err != nil {
		t.Fatal(err)
	}
	if c := costsOf(); !c[0].Cost.Equal(first) {
		t.Fatalf("within the ttl the cached plans price: got %s, want %s", c[0].Cost, first)
	}
	now = now.Add(5 * time.Second)
	if c := costsOf(); !c[0].Cost.Equal(first.Mul(two)) {
		t.Fatalf("after the ttl the new version prices: got %s, want %s", c[0].Cost, first.Mul(two))
	}

	// A version added through the cache counts at once, ttl or not.
	three := decimal.RequireFromString("3")
	if _, err := cache.AddPlanVersion(ctx, "tariff", billing.NewFLOPsVersion(billing.NewDate(2026, 11, 30), three, three)); err != nil {
		t.Fatal(err)
	}
	if c := costsOf(); !c[0].Cost.Equal(first.Mul(three)) {
		t.Fatalf("a version added through the cache must price at once: got %s, want %s", c[0].Cost, first.Mul(three))
	}
}
