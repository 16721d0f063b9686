// Package migrations holds the database schema as forward-only, numbered
// plain SQL files in goose's format, embedded in the binary. A migration is
// never edited after it has landed on main: a fix goes in a new file.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed *.sql
var files embed.FS

// FS returns the migration files, named NNNNN_what.sql, at the root of the FS.
func FS() fs.FS { return files }
