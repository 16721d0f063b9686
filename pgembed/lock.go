package pgembed

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked reports that another Server, in this or another process,
// already runs the cluster.
var ErrLocked = errors.New("pgembed: cluster is in use")

// lockCluster takes an exclusive flock on path and writes our pid into it.
// The kernel drops the lock when the file is closed or the process dies,
// so a SIGKILLed predecessor never leaves it behind. Go opens files with
// O_CLOEXEC, so postgres does not inherit (and keep) the lock.
func lockCluster(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pgembed: open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b, _ := io.ReadAll(io.LimitReader(f, 32))
			pid := strings.TrimSpace(string(b))
			if pid == "" {
				pid = "unknown"
			}
			return nil, fmt.Errorf("%w: %s is held by pid %s; stop that flopledger process or use another data folder",
				ErrLocked, path, pid)
		}
		return nil, fmt.Errorf("pgembed: lock %s: %w", path, err)
	}
	// The pid only feeds the error message above, so a failed write is not fatal.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}
