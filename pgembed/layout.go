package pgembed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

const (
	// SocketPort only names the socket file (.s.PGSQL.<port>); the server
	// opens no TCP port. It is not 5432 so that a connection string missing
	// its host= parameter fails instead of reaching the system server.
	SocketPort = 54329

	// DefaultFallbackDir holds clusters whose requested folder the account
	// cannot reach (see Options.FallbackDir).
	DefaultFallbackDir = "/var/lib/flopledger"

	// maxSocketPath is the longest unix socket path: sun_path is 108 bytes
	// on Linux, including the terminating NUL.
	maxSocketPath = 107
)

var socketName = ".s.PGSQL." + strconv.Itoa(SocketPort)

// layout is where a cluster's pieces live.
type layout struct {
	requested string // the absolute folder the caller asked for
	dataDir   string // the cluster actually used
	relocated string // why dataDir differs from requested; "" if it does not
	lockPath  string
	logPath   string
}

// planLayout decides where the cluster goes and creates the folders that
// will hold it (but not the cluster folder itself, which is created under
// the lock). As root it makes sure the account can reach the cluster, and
// relocates it under fallbackRoot when it cannot.
func planLayout(requested, fallbackRoot string, a account) (layout, error) {
	l := layout{requested: requested, dataDir: requested}
	parent := filepath.Dir(requested)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return l, fmt.Errorf("pgembed: create %s: %w", parent, err)
	}
	if a.switchTo {
		if err := traversable(parent, a); err != nil {
			if _, statErr := os.Stat(filepath.Join(requested, "PG_VERSION")); statErr == nil {
				// Falling back would silently start an empty cluster next
				// to the user's data.
				return l, fmt.Errorf("pgembed: the cluster in %s cannot be reached by account %s: %v; "+
					"make its parent folders traversable (chmod o+x) or move it", requested, a.name, err)
			}
			l.dataDir = fallbackPath(fallbackRoot, requested)
			l.relocated = err.Error()
			if err := mkdirShared(fallbackRoot); err != nil {
				return l, err
			}
			if err := mkdirShared(filepath.Dir(l.dataDir)); err != nil {
				return l, err
			}
			if err := traversable(filepath.Dir(l.dataDir), a); err != nil {
				return l, fmt.Errorf("pgembed: fallback folder unusable too: %w", err)
			}
		}
	}
	l.lockPath = filepath.Join(filepath.Dir(l.dataDir), "postgres.lock")
	l.logPath = filepath.Join(filepath.Dir(l.dataDir), "postgres.log")
	return l, nil
}

// fallbackPath is deterministic in the requested folder, so the cluster is
// found again after a restart.
func fallbackPath(root, requested string) string {
	return filepath.Join(root, shortHash(requested), "pg")
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:16]
}

// mkdirShared creates dir with mode 0755 (whatever the umask) if missing.
// Existing folders are left as they are: traversable() then judges them.
func mkdirShared(dir string) error {
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		return fmt.Errorf("pgembed: create %s: %w", dir, err)
	}
	return nil
}

// socketDir returns the folder for the socket: the cluster folder itself
// when the socket path fits in sun_path, else a short folder under
// os.TempDir() named after the cluster, owned by the account with mode 0700.
// A folder with a comma is avoided too: libpq and pgx read host= as a
// comma-separated list of hosts.
func socketDir(dataDir string, a account) (dir string, moved bool, err error) {
	if len(dataDir)+1+len(socketName) <= maxSocketPath && !strings.Contains(dataDir, ",") {
		return dataDir, false, nil
	}
	dir = filepath.Join(os.TempDir(), "flopledger-pg-"+shortHash(dataDir))
	if len(dir)+1+len(socketName) > maxSocketPath {
		return "", false, fmt.Errorf("pgembed: socket path under %s is longer than %d bytes too; set TMPDIR to a short folder",
			os.TempDir(), maxSocketPath)
	}
	if err := ensurePrivateDir(dir, a, true); err != nil {
		return "", false, err
	}
	return dir, true, nil
}

// ensurePrivateDir makes dir exist as a real folder owned by the account.
// A missing folder is created with mode 0700. An existing folder owned by
// someone else is taken over only when empty, since it may hold another
// user's data. With strict, mode 0700 is enforced on an existing folder too.
// The folder is opened with O_NOFOLLOW and changed through the descriptor,
// so a symlink planted in a shared folder like /tmp is never followed.
func ensurePrivateDir(dir string, a account, strict bool) error {
	created := false
	if err := os.Mkdir(dir, 0o700); err == nil {
		created = true
	} else if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("pgembed: create %s: %w", dir, err)
	}
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("pgembed: open %s (must be a folder, not a symlink): %w", dir, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("pgembed: stat %s: %w", dir, err)
	}
	if owner := ownerUID(fi); owner != a.uid {
		if !a.switchTo {
			return fmt.Errorf("pgembed: %s is owned by uid %d, not by us (uid %d)", dir, owner, a.uid)
		}
		if _, err := f.Readdirnames(1); err != io.EOF {
			return fmt.Errorf("pgembed: %s is not empty and is owned by uid %d, not by account %s; "+
				"chown -R %s it or choose another folder", dir, owner, a.name, a.name)
		}
		if err := f.Chown(int(a.uid), int(a.gid)); err != nil {
			return fmt.Errorf("pgembed: chown %s to %s: %w", dir, a.name, err)
		}
		created = true
	}
	if created || strict {
		if err := f.Chmod(0o700); err != nil {
			return fmt.Errorf("pgembed: chmod %s: %w", dir, err)
		}
	}
	return nil
}
