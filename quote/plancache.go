package quote

import (
	"context"
	"sync"
	"time"

	"github.com/flopledger/flopledger/billing"
)

// PlanStore keeps price plans (the store).
type PlanStore interface {
	Plans(ctx context.Context) ([]billing.Plan, error)
	Plan(ctx context.Context, name string) (billing.Plan, error)
	CreatePlan(ctx context.Context, p billing.Plan) error
	AddPlanVersion(ctx context.Context, name string, v billing.Version) (bool, error)
}

// PlanCache keeps the list of plans in memory for the estimate API, which
// prices every estimate under every plan: reading the plans from the
// database for each estimate cost a round trip per request for data that
// changes a few times a year.
//
// Writes made through the cache take effect at once. Writes made by another
// instance of the service show after at most ttl. Reports and comparisons
// do not go through the cache: they always price with the plans as stored.
type PlanCache struct {
	store PlanStore
	ttl   time.Duration
	now   func() time.Time

	mu      sync.Mutex
	plans   []billing.Plan
	fetched time.Time
	gen     uint64 // bumped by every write, so that a read begun before it is not kept
}

// NewPlanCache caches store's plans for ttl.
func NewPlanCache(store PlanStore, ttl time.Duration, now func() time.Time) *PlanCache {
	return &PlanCache{store: store, ttl: ttl, now: now}
}

// Plans returns every plan, from memory when the copy is younger than the
// ttl. The plans are shared: callers must not modify them.
func (c *PlanCache) Plans(ctx context.Context) ([]billing.Plan, error) {
	now := c.now()
	c.mu.Lock()
	plans, fresh, gen := c.plans, c.plans != nil && now.Sub(c.fetched) < c.ttl, c.gen
	c.mu.Unlock()
	if fresh {
		return plans, nil
	}
	plans, err := c.store.Plans(ctx)
	if err != nil {
		return nil, err
	}
	if plans == nil {
		plans = []billing.Plan{} // cached as "no plans", not as "not read"
	}
	c.mu.Lock()
	if c.gen == gen {
		c.plans, c.fetched = plans, now
	}
	c.mu.Unlock()
	return plans, nil
}

// Plan reads one plan from the store.
func (c *PlanCache) Plan(ctx context.Context, name string) (billing.Plan, error) {
	return c.store.Plan(ctx, name)
}

// CreatePlan stores a new plan and forgets the cached list.
func (c *PlanCache) CreatePlan(ctx context.Context, p billing.Plan) error {
	defer c.forget()
	return c.store.CreatePlan(ctx, p)
}

// AddPlanVersion stores a version and forgets the cached list.
func (c *PlanCache) AddPlanVersion(ctx context.Context, name string, v billing.Version) (bool, error) {
	defer c.forget()
	return c.store.AddPlanVersion(ctx, name, v)
}

func (c *PlanCache) forget() {
	c.mu.Lock()
	c.plans, c.gen = nil, c.gen+1
	c.mu.Unlock()
}
