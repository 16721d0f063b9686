package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flopledger/flopledger/auth"
)

// CreateKey implements auth.Store.
func (s *Store) CreateKey(ctx context.Context, k auth.Key, hash []byte) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO api_keys (id, name, hash, scopes, created_at) VALUES ($1, $2, $3, $4, $5)`, k.ID, k.Name, hash, k.Scopes, k.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: create key: %w", err)
	}
	return nil
}

type keyRow struct {
	ID         string
	Name       string
	Scopes     []string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

func (r keyRow) key() auth.Key {
	return auth.Key{ID: r.ID, Name: r.Name, Scopes: r.Scopes, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt}
}

const keyColumns = `id, name, scopes, created_at, last_used_at`

func (s *Store) oneKey(ctx context.Context, where string, arg any) (auth.Key, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE revoked_at IS NULL AND `+where, arg)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[keyRow])
	if errors.Is(err, pgx.ErrNoRows) {
		return auth.Key{}, fmt.Errorf("store: key: %w", auth.ErrNotFound)
	}
	if err != nil {
		return auth.Key{}, fmt.Errorf("store: key: %w", err)
	}
	return r.key(), nil
}

// KeyByHash implements auth.Store.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (auth.Key, error) {
	return s.oneKey(ctx, "hash = $1", hash)
}

// KeyByID implements auth.Store.
func (s *Store) KeyByID(ctx context.Context, id string) (auth.Key, error) {
	return s.oneKey(ctx, "id = $1", id)
}

// Keys implements auth.Store: the keys not revoked, oldest first.
func (s *Store) Keys(ctx context.Context) ([]auth.Key, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, id`)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[keyRow])
	if err != nil {
		return nil, fmt.Errorf("store: keys: %w", err)
	}
	out := make([]auth.Key, len(list))
	for i, r := range list {
		out[i] = r.key()
	}
	return out, nil
}

// RevokeKey implements auth.Store; the key's sessions go with it.
func (s *Store) RevokeKey(ctx context.Context, id string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, id)
		if err != nil {
			return fmt.Errorf("store: revoke key: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: revoke key %q: %w", id, auth.ErrNotFound)
		}
		_, err = tx.Exec(ctx, `DELETE FROM sessions WHERE key_id = $1`, id)
		return err
	})
}

// CountKeys implements auth.Store (revoked keys count: bootstrap happens once).
func (s *Store) CountKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM api_keys`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count keys: %w", err)
	}
	return n, nil
}

// TouchKey implements auth.Store.
func (s *Store) TouchKey(ctx context.Context, id string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE api_keys SET last_used_at = $2 WHERE id = $1`, id, at)
	return err
}

// CreateSession implements auth.Store.
func (s *Store) CreateSession(ctx context.Context, hash []byte, keyID, csrf string, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions (hash, key_id, csrf, expires_at) VALUES ($1, $2, $3, $4)`, hash, keyID, csrf, expires)
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// Session implements auth.Store.
func (s *Store) Session(ctx context.Context, hash []byte, now time.Time) (string, string, error) {
	var id, csrf string
	err := s.pool.QueryRow(ctx, `SELECT key_id, csrf FROM sessions WHERE hash = $1 AND expires_at > $2`, hash, now).Scan(&id, &csrf)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fmt.Errorf("store: session: %w", auth.ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("store: session: %w", err)
	}
	return id, csrf, nil
}

// DeleteSession implements auth.Store.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, hash)
	return err
}
