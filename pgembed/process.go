package pgembed

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a process started from a goroutine locked to its OS thread.
//
// Pdeathsig is delivered when the *thread* that forked the child exits, not
// the process. Go may retire a thread whose goroutine exits while locked, so
// a child started from an arbitrary goroutine could get its death signal
// while we are still running. The starting goroutine therefore stays locked
// for the child's whole life, waiting on it, and its thread cannot go away
// before the child has exited, except with the whole process, which is the
// case Pdeathsig is for.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited and been reaped
	err  error         // the exit status; valid after done is closed
}

func startChild(cmd *exec.Cmd) (*child, error) {
	c := &child{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.err = cmd.Wait()
		close(c.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// procAttr runs a child as the account, in its own process group so that a
// Ctrl-C in the terminal reaches only us (we stop postgres ourselves, in
// order), and with deathSig (if non-zero) sent to it should we die.
// Credentials are set before the death signal in Go's fork path, which
// matters because the kernel clears Pdeathsig when credentials change.
func procAttr(a account, deathSig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig, Credential: a.credential()}
}

// childEnv is our environment without PG* variables (PGHOST, PGPORT,
// PGOPTIONS... would redirect or alter the tools' connections) and with the
// C locale, so that messages we match (e.g. "already exists") are English.
func childEnv(a account) []string {
	env := []string{"LC_ALL=C"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "PG"), strings.HasPrefix(k, "LC_"), k == "LANG", k == "LANGUAGE":
			continue
		case a.switchTo && (k == "HOME" || k == "USER" || k == "LOGNAME"):
			continue
		}
		env = append(env, kv)
	}
	if a.switchTo {
		env = append(env, "HOME="+a.home, "USER="+a.name, "LOGNAME="+a.name)
	}
	return env
}

// command prepares a short-lived tool from the bin dir, run as the account.
// Its working folder is "/" because ours may be unreadable to the account.
func command(ctx context.Context, binDir string, a account, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), args...)
	cmd.Dir = "/"
	cmd.Env = childEnv(a)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: a.credential()}
	return cmd
}

// postmasterPID reads the pid on the first line of dir/postmaster.pid; 0 if
// the file does not exist.
func postmasterPID(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, nil // a torn file from a crash mid-write: nothing to stop
	}
	return pid, nil
}

// alive reports whether pid exists and is not a zombie (an orphan whose
// exit nobody has reaped yet is dead for our purposes).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and may
	// itself contain ") ".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// isPostmasterOf reports whether pid is a postgres process working on dir.
// The postmaster chdirs into its data folder, so /proc/<pid>/cwd identifies
// the cluster even if the pid in postmaster.pid was reused by an unrelated
// process after a reboot or a container restart.
func isPostmasterOf(pid int, dir string) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	cwd, err := os.Readlink(proc + "/cwd")
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || cwd != real {
		return false
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil {
		return false
	}
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	base := filepath.Base(argv0)
	return base == "postgres" || base == "postmaster"
}

// stopOrphan shuts down a postmaster left running on our cluster by a
// predecessor that died without stopping it: fast shutdown (SIGINT) first,
// then immediate shutdown (SIGQUIT), which makes the next start run crash
// recovery but loses no committed data. It is not our child, so we poll.
func stopOrphan(ctx context.Context, pid int) error {
	steps := []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, 30 * time.Second}, {syscall.SIGQUIT, 10 * time.Second}}
	for _, st := range steps {
		if err := syscall.Kill(pid, st.sig); err == syscall.ESRCH {
			return nil
		}
		if waitGone(ctx, pid, st.wait) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("pgembed: postmaster pid %d left by a previous run ignores SIGINT and SIGQUIT; kill it by hand", pid)
}

// waitGone polls until pid is no longer alive, up to d or ctx's end.
func waitGone(ctx context.Context, pid int, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for alive(pid) {
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return !alive(pid)
		case <-tick.C:
		}
	}
	return true
}
