package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// listPartitions names the monthly partitions of usage_records with the
// start of their range, read from the catalog rather than from their names.
const listPartitions = `
SELECT c.relname, (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\)'))[1]::timestamptz
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'usage_records'::regclass
ORDER BY 2`

// DropRawBefore drops the raw-record partitions of months that end on or
// before cutoff, and returns their names. The daily rollups keep those
// months' figures, and usage_ids keeps their ids, so a replay of old
// records is still recognised as a duplicate.
func (s *Store) DropRawBefore(ctx context.Context, cutoff time.Time) ([]string, error) {
	rows, _ := s.pool.Query(ctx, listPartitions)
	type part struct {
		Name  string
		Start time.Time
	}
	parts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[part])
	if err != nil {
		return nil, fmt.Errorf("store: list partitions: %w", err)
	}
	var dropped []string
	for _, p := range parts {
		if p.Start.AddDate(0, 1, 0).After(cutoff) {
			continue
		}
		if _, err := s.pool.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{p.Name}.Sanitize()); err != nil {
			return dropped, fmt.Errorf("store: drop partition %s: %w", p.Name, err)
		}
		partitions.Delete(s.partitionKey(p.Start.UTC()))
		dropped = append(dropped, p.Name)
	}
	return dropped, nil
}
