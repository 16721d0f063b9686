package auth_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/flopledger/flopledger/auth"
	"github.com/flopledger/flopledger/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestRevocationReachesOtherInstancesWithinTTL runs two services on one
// real database, as two instances of flopledger would: a key revoked on one
// stops working there at once and on the other once KeyCacheTTL has passed
// since that one last checked it.
func TestRevocationReachesOtherInstancesWithinTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.NewStore(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	here, there := auth.New(st, "", clock), auth.New(st, "", clock)
	k, secret, err := here.Create(ctx, auth.CreateInput{Name: "client", Scopes: []string{auth.ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range []*auth.Service{here, there} {
		if got, err := svc.Check(ctx, secret); err != nil || got.ID != k.ID {
			t.Fatalf("a new key must be valid on every instance: %+v %v", got, err)
		}
	}
	if err := here.Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := here.Check(ctx, secret); !errors.Is(err, auth.ErrBadKey) {
		t.Fatalf("revoked here, the key must fail here at once: %v", err)
	}
	if _, err := there.Check(ctx, secret); err != nil {
		t.Fatalf("within the TTL the other instance still trusts its last check: %v", err)
	}
	now = now.Add(auth.KeyCacheTTL)
	if _, err := there.Check(ctx, secret); !errors.Is(err, auth.ErrBadKey) {
		t.Fatalf("after the TTL the other instance must refuse the revoked key: %v", err)
	}
	if _, err := there.Check(ctx, "flk_not-a-key"); !errors.Is(err, auth.ErrBadKey) {
		t.Fatalf("an unknown key: %v", err)
	}
}

// TestLastUsedIsRecorded: a key's use shows in the key list, to the minute.
func TestLastUsedIsRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.NewStore(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	svc := auth.New(st, "", func() time.Time { return now })
	k, secret, err := svc.Create(ctx, auth.CreateInput{Name: "client", Scopes: []string{auth.ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() *time.Time {
		t.Helper()
		keys, err := svc.List(ctx)
		if err != nil || len(keys) != 1 || keys[0].ID != k.ID {
			t.Fatalf("list: %+v %v", keys, err)
		}
		return keys[0].LastUsedAt
	}
	if at := lastUsed(); at != nil {
		t.Fatalf("an unused key was used at %s", at)
	}
	if _, err := svc.Check(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if at := lastUsed(); at == nil || !at.Equal(now) {
		t.Fatalf("last used %v, want %s", at, now)
	}
	// Within the minute the record stays; after it, it moves on.
	first := now
	now = now.Add(30 * time.Second)
	if _, err := svc.Check(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if at := lastUsed(); !at.Equal(first) {
		t.Fatalf("within a minute: last used %v, want %s", at, first)
	}
	now = now.Add(time.Minute)
	if _, err := svc.Check(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if at := lastUsed(); !at.Equal(now) {
		t.Fatalf("after a minute: last used %v, want %s", at, now)
	}
}
