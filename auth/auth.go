// Package auth issues and checks API keys and dashboard sessions. A key is
// 32 random bytes shown once ("flk_" + base64url); only its SHA-256 is
// stored, which is enough for a secret of that entropy (no slow hash
// needed: nothing to brute-force). Scopes: ingest (write usage, import),
// read (estimate, comparison, reports, alerts), admin (everything, incl.
// plans, models, budgets, keys and report runs).
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flopledger/flopledger/estimator"
)

// Scopes.
const (
	ScopeIngest = "ingest"
	ScopeRead   = "read"
	ScopeAdmin  = "admin"
)

// Errors.
var (
	ErrNoKey             = errors.New("no API key: send Authorization: Bearer <key>")
	ErrBadKey            = errors.New("the API key is not valid (unknown or revoked)")
	ErrNotFound          = errors.New("API key not found")
	ErrNoSession         = errors.New("not signed in")
	ErrBootstrapDisabled = errors.New("keys exist already")
)

// Key is an API key as listed (never with its secret).
type Key struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

// Allows says whether the key may act in scope: admin may do everything.
func (k Key) Allows(scope string) bool {
	return slices.Contains(k.Scopes, ScopeAdmin) || slices.Contains(k.Scopes, scope)
}

// Store keeps keys and sessions (the store package).
type Store interface {
	CreateKey(ctx context.Context, k Key, hash []byte) error
	KeyByHash(ctx context.Context, hash []byte) (Key, error) // ErrNotFound (wrapped) when unknown or revoked
	KeyByID(ctx context.Context, id string) (Key, error)     // ErrNotFound (wrapped) when unknown or revoked
	Keys(ctx context.Context) ([]Key, error)
	RevokeKey(ctx context.Context, id string) error
	CountKeys(ctx context.Context) (int, error)
	TouchKey(ctx context.Context, id string, at time.Time) error
	CreateSession(ctx context.Context, hash []byte, keyID, csrf string, expires time.Time) error
	Session(ctx context.Context, hash []byte, now time.Time) (keyID, csrf string, err error) // ErrNotFound when absent or expired
	DeleteSession(ctx context.Context, hash []byte) error
}

// Service issues and checks keys.
type Service struct {
	store Store
	// admin is the hash of FLOPLEDGER_ADMIN_KEY, if set: an admin key that
	// lives in the environment, not in the database.
	admin []byte
	now   func() time.Time

	// checked remembers keys found valid for KeyCacheTTL, so that a busy
	// client's every request is not also a database round trip.
	mu      sync.Mutex
	checked map[[sha256.Size]byte]checkedKey
}

// KeyCacheTTL is how long a key found valid is trusted without asking the
// database again. A key revoked through this service stops working at
// once; one revoked by another instance of the service, within this time.
const KeyCacheTTL = time.Second

// lastUsedEvery is how often a key's last use is written: at most once a
// minute per key, so that a busy client does not turn reads into writes.
const lastUsedEvery = time.Minute

// maxCheckedKeys bounds the cache; past it the cache starts over. Only
// valid keys enter it, so an attacker cannot fill it with guesses.
const maxCheckedKeys = 10_000

type checkedKey struct {
	key   Key
	until time.Time
}

// New returns a Service; envAdminKey may be "".
func New(s Store, envAdminKey string, now func() time.Time) *Service {
	svc := &Service{store: s, now: now, checked: map[[sha256.Size]byte]checkedKey{}}
	if envAdminKey != "" {
		svc.admin = hash(envAdminKey)
	}
	return svc
}

func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// NewSecret returns a fresh API key.
func NewSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "flk_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// CreateInput is the body of POST /v1/keys.
type CreateInput struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

// Validate reports every problem.
func (in CreateInput) Validate() error {
	var ps []estimator.Problem
	if strings.TrimSpace(in.Name) == "" || len(in.Name) > 200 {
		ps = append(ps, estimator.Problem{Field: "name", Message: "is required (1 to 200 bytes)"})
	}
	if len(in.Scopes) == 0 {
		ps = append(ps, estimator.Problem{Field: "scopes", Message: "give at least one of ingest, read, admin"})
	}
	for i, s := range in.Scopes {
		if s != ScopeIngest && s != ScopeRead && s != ScopeAdmin {
			ps = append(ps, estimator.Problem{Field: fmt.Sprintf("scopes[%d]", i), Message: fmt.Sprintf("%q is not a scope (ingest, read, admin)", s)})
		}
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

// Create makes a key and returns it with its secret, shown this once.
func (s *Service) Create(ctx context.Context, in CreateInput) (Key, string, error) {
	if err := in.Validate(); err != nil {
		return Key{}, "", err
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	secret := NewSecret()
	k := Key{ID: "key_" + hex.EncodeToString(id[:]), Name: strings.TrimSpace(in.Name), Scopes: slices.Compact(slices.Sorted(slices.Values(in.Scopes))), CreatedAt: s.now().UTC()}
	if err := s.store.CreateKey(ctx, k, hash(secret)); err != nil {
		return Key{}, "", err
	}
	return k, secret, nil
}

// Bootstrap makes the first admin key when no key exists and none comes
// from the environment; it returns ErrBootstrapDisabled otherwise. The
// caller prints the secret once.
func (s *Service) Bootstrap(ctx context.Context) (Key, string, error) {
	if s.admin != nil {
		return Key{}, "", ErrBootstrapDisabled
	}
	n, err := s.store.CountKeys(ctx)
	if err != nil {
		return Key{}, "", err
	}
	if n > 0 {
		return Key{}, "", ErrBootstrapDisabled
	}
	return s.Create(ctx, CreateInput{Name: "bootstrap admin", Scopes: []string{ScopeAdmin}})
}

// Check finds the key a request presents.
func (s *Service) Check(ctx context.Context, secret string) (Key, error) {
	if secret == "" {
		return Key{}, ErrNoKey
	}
	h := hash(secret)
	if s.admin != nil && subtle.ConstantTimeCompare(h, s.admin) == 1 {
		return envAdmin, nil
	}
	var sum [sha256.Size]byte
	copy(sum[:], h)
	now := s.now()
	s.mu.Lock()
	c, ok := s.checked[sum]
	s.mu.Unlock()
	if ok && now.Before(c.until) {
		return c.key, nil
	}
	k, err := s.store.KeyByHash(ctx, h)
	if errors.Is(err, ErrNotFound) {
		return Key{}, ErrBadKey
	}
	if err != nil {
		return Key{}, err
	}
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= lastUsedEvery {
		// Best effort: a key that works must not fail for want of this
		// record, and the next check a minute on tries again.
		if s.store.TouchKey(ctx, k.ID, now) == nil {
			at := now
			k.LastUsedAt = &at
		}
	}
	s.mu.Lock()
	if len(s.checked) >= maxCheckedKeys {
		clear(s.checked)
	}
	s.checked[sum] = checkedKey{key: k, until: now.Add(KeyCacheTTL)}
	s.mu.Unlock()
	return k, nil
}

// envAdmin is the key FLOPLEDGER_ADMIN_KEY stands for.
var envAdmin = Key{ID: "env:FLOPLEDGER_ADMIN_KEY", Name: "environment admin key", Scopes: []string{ScopeAdmin}}

// List returns the keys, without secrets.
func (s *Service) List(ctx context.Context) ([]Key, error) { return s.store.Keys(ctx) }

// Revoke revokes a key at once (its sessions end with it). Other
// instances of the service stop accepting it within KeyCacheTTL.
func (s *Service) Revoke(ctx context.Context, id string) error {
	err := s.store.RevokeKey(ctx, id)
	s.mu.Lock()
	clear(s.checked) // by hash, not id: forget them all; they come back in one query each
	s.mu.Unlock()
	return err
}

// SessionTTL is how long a dashboard sign-in lasts.
const SessionTTL = 12 * time.Hour

// SignIn checks a key and opens a dashboard session; it returns the
// session token (for the cookie) and the session's CSRF token (for forms).
func (s *Service) SignIn(ctx context.Context, secret string) (token, csrf string, k Key, err error) {
	k, err = s.Check(ctx, secret)
	if err != nil {
		return "", "", Key{}, err
	}
	token, csrf = NewSecret(), NewSecret()
	if err := s.store.CreateSession(ctx, hash(token), k.ID, csrf, s.now().Add(SessionTTL)); err != nil {
		return "", "", Key{}, err
	}
	return token, csrf, k, nil
}

// Session finds the key and CSRF token of a session token.
func (s *Service) Session(ctx context.Context, token string) (Key, string, error) {
	if token == "" {
		return Key{}, "", ErrNoSession
	}
	id, csrf, err := s.store.Session(ctx, hash(token), s.now())
	if errors.Is(err, ErrNotFound) {
		return Key{}, "", ErrNoSession
	}
	if err != nil {
		return Key{}, "", err
	}
	if id == envAdmin.ID {
		if s.admin == nil { // the variable was unset since: the session ends
			return Key{}, "", ErrNoSession
		}
		return envAdmin, csrf, nil
	}
	k, err := s.store.KeyByID(ctx, id)
	if errors.Is(err, ErrNotFound) { // revoked: its sessions end with it
		return Key{}, "", ErrNoSession
	}
	return k, csrf, err
}

// SignOut ends a session.
func (s *Service) SignOut(ctx context.Context, token string) error {
	return s.store.DeleteSession(ctx, hash(token))
}
