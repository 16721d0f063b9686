package pgembed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNotInstalled reports that no PostgreSQL server binaries were found.
var ErrNotInstalled = errors.New("pgembed: PostgreSQL server binaries (initdb, postgres, pg_ctl) not found; " +
	"install PostgreSQL (e.g. `apt-get install postgresql`), or set DATABASE_URL to use an existing server, " +
	"or start one with `docker compose up`")

// serverBinaries mark a folder as a PostgreSQL server installation.
var serverBinaries = []string{"initdb", "postgres", "pg_ctl"}

// FindBinaries returns the folder holding initdb, postgres and pg_ctl. It
// looks, in order, in hint; on PATH (following symlinks, so that
// /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb yields the
// latter, which also holds the client tools); in `pg_config --bindir`; in the
// newest /usr/lib/postgresql/<version>/bin (Debian and Ubuntu); and in
// /usr/local/pgsql/bin (source builds). A non-empty hint that lacks the
// binaries is an error rather than a reason to look elsewhere: an explicit
// setting that is wrong should not be silently ignored.
func FindBinaries(hint string) (string, error) {
	f := finder{
		path:    os.Getenv("PATH"),
		libRoot: "/usr/lib/postgresql",
		local:   "/usr/local/pgsql/bin",
	}
	return f.find(hint)
}

// finder holds the places FindBinaries searches, so tests can replace them
// without touching the process environment.
type finder struct {
	path    string // a PATH value
	libRoot string // parent of <version>/bin folders
	local   string // last resort folder
}

func (f finder) find(hint string) (string, error) {
	if hint != "" {
		if err := hasServerBinaries(hint); err != nil {
			return "", fmt.Errorf("pgembed: bin dir %s: %w", hint, err)
		}
		return hint, nil
	}
	if p, ok := lookPath(f.path, "initdb"); ok {
		if real, err := filepath.EvalSymlinks(p); err == nil && hasServerBinaries(filepath.Dir(real)) == nil {
			return filepath.Dir(real), nil
		}
		if hasServerBinaries(filepath.Dir(p)) == nil {
			return filepath.Dir(p), nil
		}
	}
	if p, ok := lookPath(f.path, "pg_config"); ok {
		if dir := pgConfigBindir(p); dir != "" && hasServerBinaries(dir) == nil {
			return dir, nil
		}
	}
	if dir := newestVersionBin(f.libRoot); dir != "" {
		return dir, nil
	}
	if hasServerBinaries(f.local) == nil {
		return f.local, nil
	}
	return "", ErrNotInstalled
}

// hasServerBinaries reports which server binary is missing from dir, if any.
func hasServerBinaries(dir string) error {
	for _, name := range serverBinaries {
		if !isExecutable(filepath.Join(dir, name)) {
			return fmt.Errorf("no executable %s", name)
		}
	}
	return nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// lookPath is exec.LookPath over an explicit PATH value. Empty and relative
// entries are skipped, as exec.LookPath refuses their results too.
func lookPath(pathList, name string) (string, bool) {
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

// pgConfigBindir runs `pg_config --bindir`; "" on any failure, since a broken
// pg_config only means this source has nothing to offer.
func pgConfigBindir(pgConfig string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// newestVersionBin returns root/<v>/bin for the highest version v that holds
// the server binaries, comparing versions numerically (9.6 < 10 < 15 < 16).
func newestVersionBin(root string) string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	type candidate struct {
		name string
		ver  []int
	}
	var cands []candidate
	for _, e := range entries {
		if v, ok := parseVersion(e.Name()); ok {
			cands = append(cands, candidate{e.Name(), v})
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int { return slices.Compare(b.ver, a.ver) })
	for _, c := range cands {
		if dir := filepath.Join(root, c.name, "bin"); hasServerBinaries(dir) == nil {
			return dir
		}
	}
	return ""
}

// parseVersion parses "15" or "9.6" into its numeric parts.
func parseVersion(s string) ([]int, bool) {
	var v []int
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}
