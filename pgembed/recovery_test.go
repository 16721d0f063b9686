package pgembed

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The recovery tests re-exec the test binary as a "flopledger" that starts
// a cluster, writes a row and is then SIGKILLed, as os/exec's own tests do.
const (
	helperDirEnv         = "PGEMBED_TEST_HELPER_DIR"
	helperNoPdeathsigEnv = "PGEMBED_TEST_HELPER_NO_PDEATHSIG"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperDirEnv); dir != "" {
		os.Exit(helperMain(dir))
	}
	os.Exit(m.Run())
}

// helperMain starts the cluster, writes a row, prints "ready <postmaster
// pid>" and waits to be killed.
func helperMain(dir string) int {
	s, err := Start(context.Background(), Options{Dir: dir, Fast: true,
		noPdeathsig: os.Getenv(helperNoPdeathsigEnv) == "1"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if out, err := psqlRun(s, "CREATE TABLE survivor (x int); INSERT INTO survivor VALUES (7)"); err != nil {
		fmt.Fprintln(os.Stderr, err, out)
		return 1
	}
	fmt.Printf("ready %d\n", s.proc.pid())
	time.Sleep(time.Hour)
	return 0
}

// killedHelper runs helperMain on dir, SIGKILLs it once it is ready, and
// returns its postmaster's pid.
func killedHelper(t *testing.T, dir string, pdeathsig bool) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+dir)
	if !pdeathsig {
		cmd.Env = append(cmd.Env, helperNoPdeathsigEnv+"=1")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
	}()
	var got string
	select {
	case got = <-line:
	case <-time.After(2 * time.Minute):
	}
	_ = cmd.Process.Kill() // SIGKILL: no deferred cleanup runs
	_ = cmd.Wait()
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(got), "ready "))
	if err != nil {
		t.Fatalf("helper did not get ready (%q): %s", got, stderr.String())
	}
	// Should the test fail before Start deals with it, do not leak it.
	t.Cleanup(func() {
		if isPostmasterOf(pid, dir) {
			_ = syscall.Kill(pid, syscall.SIGQUIT)
		}
	})
	return pid
}

// TestKilledOwnerPdeathsig: when flopledger is SIGKILLed, the kernel tells
// postgres to shut down, and the next Start finds the data.
func TestKilledOwnerPdeathsig(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	pid := killedHelper(t, dir, true)
	if !waitGone(context.Background(), pid, 30*time.Second) {
		t.Fatalf("postmaster %d outlived its killed parent by 30s", pid)
	}
	s := startT(t, Options{Dir: dir, Fast: true})
	if got := psql(t, s, "SELECT x FROM survivor"); got != "7" {
		t.Errorf("after restart: %q; want 7", got)
	}
}

// TestOrphanedPostmasterStopped: a postmaster still running on the folder
// (here because Pdeathsig was off) is stopped by the next Start.
func TestOrphanedPostmasterStopped(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	pid := killedHelper(t, dir, false)
	time.Sleep(300 * time.Millisecond)
	if !isPostmasterOf(pid, dir) {
		t.Fatalf("postmaster %d is gone; the test needs it orphaned", pid)
	}
	s := startT(t, Options{Dir: dir, Fast: true})
	if alive(pid) {
		t.Errorf("orphaned postmaster %d still alive", pid)
	}
	if s.proc.pid() == pid {
		t.Errorf("Start reused the orphan")
	}
	if got := psql(t, s, "SELECT x FROM survivor"); got != "7" {
		t.Errorf("after restart: %q; want 7", got)
	}
}

// TestStalePidFile: postmaster.pid naming a dead process is postgres's to
// handle; one naming a live unrelated process (pid reuse) is removed by us.
func TestStalePidFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "pg")
	pidFile := filepath.Join(dir, "postmaster.pid")
	s := startT(t, Options{Dir: dir, Fast: true})
	real, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	acct := s.acct
	stop(t, s)

	writePidFile := func(pid int) {
		t.Helper()
		_, rest, _ := strings.Cut(string(real), "\n")
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(pid)+"\n"+rest), 0o600); err != nil {
			t.Fatal(err)
		}
		if acct.switchTo {
			if err := os.Chown(pidFile, int(acct.uid), int(acct.gid)); err != nil {
				t.Fatal(err)
			}
		}
	}

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	writePidFile(dead.Process.Pid)
	s = startT(t, Options{Dir: dir, Fast: true})
	stop(t, s)

	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	writePidFile(live.Process.Pid)
	s = startT(t, Options{Dir: dir, Fast: true})
	if got := psql(t, s, "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
	if !alive(live.Process.Pid) {
		t.Errorf("the unrelated process named in the stale pid file was killed")
	}
}
